package dev.tandem.deviceplugin.preferred;

import dev.tandem.api.Annotations;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Finds the pod being admitted for a preferred-allocation request and what it already holds: the
 * pods pending on this node with a plan (oldest plan first) whose container's limit of the resource
 * equals the request size (or whose plan has that many HCAs), skipping pods that already hold
 * devices of the resource; then, from PodResources, the GPUs that container holds. Each lookup is
 * bounded by a timeout; a failure degrades the hint and says why, it never fails.
 */
public final class HintFinder {

  private final Machine machine;
  private final String resource;
  private final PendingPlans plans;
  private final PodResourcesSource podResources;
  private final long timeoutMs;

  /** {@code plans} or {@code podResources} may be null when that source is disabled. */
  public HintFinder(
      Machine machine,
      String resource,
      PendingPlans plans,
      PodResourcesSource podResources,
      long timeoutMs) {
    this.machine = machine;
    this.resource = resource;
    this.plans = plans;
    this.podResources = podResources;
    this.timeoutMs = timeoutMs;
  }

  public Future<Hint> find(int size) {
    if (plans == null) {
      return Future.succeededFuture(Hint.none("API-server lookup disabled (--no-kube)"));
    }
    Future<List<PlannedPod>> pending =
        plans.pending(machine.nodeName()).timeout(timeoutMs, TimeUnit.MILLISECONDS);
    Future<List<HeldDevices>> held =
        podResources == null
            ? Future.failedFuture("PodResources lookup disabled")
            : podResources.list().timeout(timeoutMs, TimeUnit.MILLISECONDS);
    return Future.join(pending, held)
        .transform(ignored -> Future.succeededFuture(decide(pending, held, size)));
  }

  private Hint decide(Future<List<PlannedPod>> pending, Future<List<HeldDevices>> held, int size) {
    if (pending.failed()) {
      return Hint.none(
          "pending pods unavailable from the API server (" + reason(pending.cause()) + ")");
    }
    List<HeldDevices> holdings = held.succeeded() ? held.result() : List.of();
    Set<String> podsHolding =
        holdings.stream()
            .filter(h -> h.resource().equals(resource) && !h.deviceIds().isEmpty())
            .map(h -> h.namespace() + "/" + h.pod())
            .collect(Collectors.toSet());
    Optional<PlannedPod> pod =
        pending.result().stream()
            .filter(p -> p.plan().node().equals(machine.nodeName()))
            .filter(p -> p.hcaLimits().containsValue(size) || p.plan().hcas().size() == size)
            .filter(p -> !podsHolding.contains(p.key()))
            .min(
                Comparator.comparing((PlannedPod p) -> p.plan().plannedAt())
                    .thenComparing(PlannedPod::key));
    if (pod.isEmpty()) {
      return Hint.none(
          "no pod pending on node "
              + machine.nodeName()
              + " with a "
              + Annotations.PLAN
              + " for "
              + size
              + " "
              + resource);
    }
    PlannedPod p = pod.get();
    if (held.failed()) {
      return Hint.plan(
          p.plan().hcas(),
          "pod "
              + p.key()
              + ": following its plan; PodResources unavailable ("
              + reason(held.cause())
              + ")");
    }
    String container = container(p, size);
    List<String> gpus = gpusOf(holdings, p, container);
    if (gpus.isEmpty()) {
      return Hint.plan(
          p.plan().hcas(),
          "pod " + p.key() + ": container " + container + " holds no GPUs yet; following its plan");
    }
    return Hint.gpus(
        gpus, p.plan().hcas(), "pod " + p.key() + ": container " + container + " holds " + gpus);
  }

  private static String container(PlannedPod p, int size) {
    return p.hcaLimits().entrySet().stream()
        .filter(e -> e.getValue() == size)
        .map(Map.Entry::getKey)
        .sorted()
        .findFirst()
        .orElse(p.hcaLimits().keySet().stream().sorted().findFirst().orElse(""));
  }

  private List<String> gpusOf(List<HeldDevices> holdings, PlannedPod p, String container) {
    Set<String> gpuIds = new HashSet<>();
    machine.devices().stream()
        .filter(d -> d.kind() == DeviceKind.GPU)
        .forEach(d -> gpuIds.add(d.id()));
    return holdings.stream()
        .filter(
            h ->
                h.namespace().equals(p.namespace())
                    && h.pod().equals(p.name())
                    && h.container().equals(container))
        .flatMap(h -> h.deviceIds().stream())
        .filter(gpuIds::contains)
        .distinct()
        .sorted()
        .toList();
  }

  private static String reason(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
