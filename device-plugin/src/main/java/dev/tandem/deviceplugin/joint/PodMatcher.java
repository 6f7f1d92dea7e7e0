package dev.tandem.deviceplugin.joint;

import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import io.vertx.core.Future;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Finds the container a first GetPreferredAllocation is for (the kubelet does not say): among the
 * pods pending on this node with a plan (oldest plan first), skipping pods that already hold
 * devices of the resource asked for (PodResources), the first container whose limit of that
 * resource equals the allocation size; its limit of the other resource is the size the second call
 * will have. A pod without such limits matches when its plan has that many devices of the resource.
 * Without the API server, only the size asked for is known. Lookups are bounded; a failure degrades
 * to "unknown", never fails.
 */
public final class PodMatcher {

  private final String node;
  private final String hcaResource;
  private final String gpuResource;
  private final PendingPlans plans;
  private final PodResourcesSource podResources;
  private final long timeoutMs;
  private volatile List<HeldDevices> lastHoldings = List.of();

  /** {@code plans} or {@code podResources} may be null when that source is disabled. */
  public PodMatcher(
      String node,
      String hcaResource,
      String gpuResource,
      PendingPlans plans,
      PodResourcesSource podResources,
      long timeoutMs) {
    this.node = node;
    this.hcaResource = hcaResource;
    this.gpuResource = gpuResource;
    this.plans = plans;
    this.podResources = podResources;
    this.timeoutMs = timeoutMs;
  }

  /** What PodResources reported at the last match (empty when unavailable). */
  List<HeldDevices> lastHoldings() {
    return lastHoldings;
  }

  Future<PodMatch> match(Side side, int size) {
    Future<List<HeldDevices>> held =
        podResources == null
            ? Future.succeededFuture(List.of())
            : podResources
                .list()
                .timeout(timeoutMs, TimeUnit.MILLISECONDS)
                .recover(e -> Future.succeededFuture(List.of()));
    if (plans == null) {
      return held.map(
          h -> {
            lastHoldings = h;
            return PodMatch.unknown(
                side, size, "API-server lookup disabled (--no-kube): matched by size only");
          });
    }
    Future<List<PlannedPod>> pending =
        plans.pending(node).timeout(timeoutMs, TimeUnit.MILLISECONDS);
    return Future.join(pending, held)
        .transform(
            ignored -> {
              lastHoldings = held.succeeded() ? held.result() : List.of();
              if (pending.failed()) {
                return Future.succeededFuture(
                    PodMatch.unknown(
                        side,
                        size,
                        "pending pods unavailable from the API server ("
                            + pending.cause().getMessage()
                            + ")"));
              }
              return Future.succeededFuture(choose(side, size, pending.result(), lastHoldings));
            });
  }

  PodMatch choose(Side side, int size, List<PlannedPod> pods, List<HeldDevices> holdings) {
    String resource = side == Side.GPU ? gpuResource : hcaResource;
    Set<String> holding =
        holdings.stream()
            .filter(h -> h.resource().equals(resource) && !h.deviceIds().isEmpty())
            .map(h -> h.namespace() + "/" + h.pod())
            .collect(Collectors.toSet());
    List<PlannedPod> candidates =
        pods.stream()
            .filter(p -> p.plan().node().equals(node))
            .filter(p -> !holding.contains(p.key()))
            .sorted(
                Comparator.comparing((PlannedPod p) -> p.plan().plannedAt())
                    .thenComparing(PlannedPod::key))
            .toList();
    for (PlannedPod p : candidates) {
      Map<String, Integer> mine = side == Side.GPU ? p.gpuLimits() : p.hcaLimits();
      Map<String, Integer> other = side == Side.GPU ? p.hcaLimits() : p.gpuLimits();
      Optional<String> container =
          mine.entrySet().stream()
              .filter(e -> e.getValue() == size)
              .map(Map.Entry::getKey)
              .sorted()
              .findFirst();
      if (container.isPresent()) {
        int o = other.getOrDefault(container.get(), 0);
        return new PodMatch(
            p,
            container.get(),
            side == Side.GPU ? size : o,
            side == Side.HCA ? size : o,
            "pod " + p.key() + " container " + container.get());
      }
      int planned = side == Side.GPU ? p.plan().gpus().size() : p.plan().hcas().size();
      if (mine.isEmpty() && planned == size) {
        return new PodMatch(
            p,
            "",
            p.plan().gpus().size(),
            p.plan().hcas().size(),
            "pod " + p.key() + " (by its plan's sizes)");
      }
    }
    return PodMatch.unknown(
        side, size, "no pod pending on node " + node + " with a plan for " + size + " " + resource);
  }
}
