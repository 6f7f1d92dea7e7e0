package dev.tandem.deviceplugin.preferred;

import dev.tandem.api.Annotations;
import io.vertx.core.Future;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Which pending pod on this node a GetPreferredAllocation call is for (the kubelet does not say):
 * among the pods pending on this node with a plan (oldest plan first), the first container, in the
 * order the kubelet admits them (init containers, then app containers), whose limit of the resource
 * asked for equals the allocation size and that has not been admitted yet: PodResources lists no
 * devices of that resource for it nor for any container after it (PodResources never lists an
 * ordinary init container, so one is known admitted only by a later container's devices), and, when
 * the call must include devices (the kubelet reusing an ended init container's), it comes after an
 * ordinary init container asking for the resource. So a pod's second container is found while its
 * first already holds devices. Its limit of the other resource is the size the other resource's
 * call will have. A pod without such limits matches when its plan has that many devices of the
 * resource. Without the API server, only the size asked for is known. Both lookups are bounded by a
 * timeout; a failure degrades the answer and says why, it never fails.
 */
public final class PendingPodLocator {

  private final String node;
  private final String hcaResource;
  private final String gpuResource;
  private final PendingPlans plans;
  private final PodResourcesSource podResources;
  private final long timeoutMs;

  /** {@code plans} or {@code podResources} may be null when that source is disabled. */
  public PendingPodLocator(
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

  /** The container a call for {@code size} devices of {@code side} is for. Never fails. */
  public Future<PendingPod> locate(Side side, int size) {
    return locate(side, size, false);
  }

  /**
   * As {@link #locate(Side, int)}; {@code reusing} when the call must include devices, which the
   * kubelet does when it reuses an ended init container's devices for a later container.
   */
  public Future<PendingPod> locate(Side side, int size, boolean reusing) {
    Future<Holdings> held = held();
    if (plans == null) {
      return held.map(
          h -> PendingPod.unknown(side, size, "API-server lookup disabled (--no-kube)", h));
    }
    Future<List<PlannedPod>> pending =
        plans.pending(node).timeout(timeoutMs, TimeUnit.MILLISECONDS);
    return Future.join(pending, held)
        .transform(
            ignored ->
                Future.succeededFuture(
                    pending.failed()
                        ? PendingPod.unknown(
                            side,
                            size,
                            "pending pods unavailable from the API server ("
                                + reason(pending.cause())
                                + ")",
                            held.result())
                        : choose(side, size, reusing, pending.result(), held.result())));
  }

  private Future<Holdings> held() {
    if (podResources == null) {
      return Future.succeededFuture(Holdings.unavailable("PodResources lookup disabled"));
    }
    return podResources
        .list()
        .timeout(timeoutMs, TimeUnit.MILLISECONDS)
        .map(Holdings::of)
        .otherwise(e -> Holdings.unavailable(reason(e)));
  }

  /** The rule itself, on what the lookups found. */
  PendingPod choose(Side side, int size, List<PlannedPod> pods, Holdings held) {
    return choose(side, size, false, pods, held);
  }

  PendingPod choose(Side side, int size, boolean reusing, List<PlannedPod> pods, Holdings held) {
    String resource = side == Side.GPU ? gpuResource : hcaResource;
    List<PlannedPod> candidates =
        pods.stream()
            .filter(p -> p.plan().node().equals(node))
            .sorted(
                Comparator.comparing((PlannedPod p) -> p.plan().plannedAt())
                    .thenComparing(PlannedPod::key))
            .toList();
    for (PlannedPod p : candidates) {
      Optional<PendingPod> match =
          match(side, size, p, held, held.containersHolding(p.key(), resource), reusing);
      if (match.isPresent()) {
        return match.get();
      }
    }
    return PendingPod.unknown(
        side,
        size,
        "no pod pending on node "
            + node
            + " with a "
            + Annotations.PLAN
            + " for "
            + size
            + " "
            + resource,
        held);
  }

  private static Optional<PendingPod> match(
      Side side, int size, PlannedPod p, Holdings held, Set<String> holding, boolean reusing) {
    Map<String, Integer> mine = side == Side.GPU ? p.gpuLimits() : p.hcaLimits();
    Map<String, Integer> other = side == Side.GPU ? p.hcaLimits() : p.gpuLimits();
    Optional<String> container = next(p, mine, size, holding, reusing);
    if (container.isPresent()) {
      int o = other.getOrDefault(container.get(), 0);
      return Optional.of(
          new PendingPod(
              p,
              container.get(),
              side == Side.GPU ? size : o,
              side == Side.HCA ? size : o,
              "pod " + p.key() + " container " + container.get(),
              held));
    }
    int planned = side == Side.GPU ? p.plan().gpus().size() : p.plan().hcas().size();
    if (mine.isEmpty() && planned == size && holding.isEmpty()) {
      return Optional.of(
          new PendingPod(
              p,
              "",
              p.plan().gpus().size(),
              p.plan().hcas().size(),
              "pod " + p.key() + " (by its plan's sizes)",
              held));
    }
    return Optional.empty();
  }

  /** The first container of {@code p}, in admission order, the call can be for. */
  private static Optional<String> next(
      PlannedPod p, Map<String, Integer> mine, int size, Set<String> holding, boolean reusing) {
    List<String> order = p.order();
    int lastHolding = -1;
    for (int i = 0; i < order.size(); i++) {
      if (holding.contains(order.get(i))) {
        lastHolding = i;
      }
    }
    boolean initBefore = false;
    for (int i = 0; i < order.size(); i++) {
      String name = order.get(i);
      int limit = mine.getOrDefault(name, 0);
      if (i > lastHolding && limit == size && (!reusing || initBefore)) {
        return Optional.of(name);
      }
      initBefore |= limit > 0 && p.endingInit().contains(name);
    }
    return Optional.empty();
  }

  private static String reason(Throwable t) {
    return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
  }
}
