package dev.tandem.extender.state;

import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.request.ContainerShare;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What the extender assumed: devices promised to pods at bind time, held as {@link AssumedPlan}s in
 * the node entries until the agent reports the pods' real allocations, the pods go away, or the
 * plans expire. The allocate-and-assume step runs inside {@link NodeTable#compute} on the node's
 * key, so two binds never get the same device.
 */
public final class Assumptions {

  private final NodeTable nodes;
  private final Clock clock;
  private final Map<String, String> assumedNode = new ConcurrentHashMap<>();

  Assumptions(NodeTable nodes, Clock clock) {
    this.nodes = nodes;
    this.clock = clock;
  }

  public int count() {
    return assumedNode.size();
  }

  /**
   * Chooses devices for the pod on the node and holds them as an assumed plan, atomically with
   * respect to every other change of the node. A plan the pod already held (a retried bind) is
   * released first.
   *
   * @return empty when the node is unknown; else the allocator's answer, assumed when feasible
   */
  public Optional<Assumption> assume(
      String node, PodRef pod, AllocationRequest request, Duration ttl) {
    return assume(node, pod, request, ttl, Shares.NONE);
  }

  /** How a pod's chosen devices are split between its containers. */
  @FunctionalInterface
  public interface Shares {

    /** No per-container shares. */
    Shares NONE = (index, a) -> List.of();

    List<ContainerShare> of(LocalityIndex index, Allocation chosen);
  }

  /** How a pod's devices are chosen on the node: the allocator's plan, or a gang member's. */
  @FunctionalInterface
  public interface Planner {

    /** The allocator's plan. */
    Planner PLAIN = Allocator::allocate;

    AllocationResult plan(Allocator allocator, AllocationRequest request, Availability free);
  }

  /**
   * As {@link #assume(String, PodRef, AllocationRequest, Duration)}, the plan also carrying the
   * per-container {@code shares} of the chosen devices.
   */
  public Optional<Assumption> assume(
      String node, PodRef pod, AllocationRequest request, Duration ttl, Shares shares) {
    return assume(node, pod, request, ttl, shares, Planner.PLAIN);
  }

  /**
   * As {@link #assume(String, PodRef, AllocationRequest, Duration, Shares)}, planned by {@code
   * planner}.
   */
  public Optional<Assumption> assume(
      String node,
      PodRef pod,
      AllocationRequest request,
      Duration ttl,
      Shares shares,
      Planner planner) {
    release(pod.uid());
    Assumption[] result = new Assumption[1];
    Instant now = clock.instant();
    nodes.computeIfPresent(
        node,
        (name, entry) -> {
          result[0] = planOn(entry, pod, request, ttl, shares, planner, now);
          if (result[0].plan() == null) {
            return entry;
          }
          Map<String, AssumedPlan> plans = new LinkedHashMap<>(entry.assumed());
          plans.put(pod.uid(), result[0].plan());
          assumedNode.put(pod.uid(), name);
          return entry.withAssumed(plans);
        });
    return Optional.ofNullable(result[0]);
  }

  /**
   * What {@link #assume(String, PodRef, AllocationRequest, Duration, Shares, Planner)} would plan
   * on the node now, holding nothing: a standby's rehearsal of a bind.
   */
  public Optional<Assumption> plan(
      String node,
      PodRef pod,
      AllocationRequest request,
      Duration ttl,
      Shares shares,
      Planner planner) {
    NodeEntry entry = nodes.get(node);
    return entry == null
        ? Optional.empty()
        : Optional.of(planOn(entry, pod, request, ttl, shares, planner, clock.instant()));
  }

  private static Assumption planOn(
      NodeEntry entry,
      PodRef pod,
      AllocationRequest request,
      Duration ttl,
      Shares shares,
      Planner planner,
      Instant now) {
    AllocationResult r = planner.plan(entry.allocator(), request, entry.free());
    if (!(r instanceof Allocation a)) {
      return new Assumption(r, null);
    }
    return new Assumption(
        r,
        new AssumedPlan(
            pod,
            entry.name(),
            a.gpuIds(),
            a.hcaIds(),
            a.worst(),
            request.policy(),
            now,
            now.plus(ttl),
            shares.of(entry.allocator().index(), a)));
  }

  /**
   * Restores a plan found on a pod (written by an earlier leader) when the agent has not reported
   * the pod's devices yet; it expires {@code ttl} after it was planned.
   */
  public void restore(AssumedPlan plan) {
    if (plan.expiresAt().isBefore(clock.instant()) || assumedNode.containsKey(plan.pod().uid())) {
      return;
    }
    nodes.computeIfPresent(
        plan.node(),
        (name, entry) -> {
          if (entry.reports(plan.pod().uid()) || entry.assumed().containsKey(plan.pod().uid())) {
            return entry;
          }
          Map<String, AssumedPlan> plans = new LinkedHashMap<>(entry.assumed());
          plans.put(plan.pod().uid(), plan);
          assumedNode.put(plan.pod().uid(), name);
          return entry.withAssumed(plans);
        });
  }

  /** Ends the pod's assumption, if any. */
  public boolean release(String uid) {
    String node = assumedNode.remove(uid);
    if (node == null) {
      return false;
    }
    nodes.computeIfPresent(node, (name, entry) -> entry.without(p -> p.pod().uid().equals(uid)));
    return true;
  }

  /** Ends assumptions whose TTL passed; returns how many. */
  public int expire() {
    Instant now = clock.instant();
    int[] count = new int[1];
    for (String name : nodes.names()) {
      nodes.computeIfPresent(
          name,
          (n, entry) ->
              entry.without(
                  p -> {
                    boolean drop = p.expiresAt().isBefore(now);
                    if (drop) {
                      assumedNode.remove(p.pod().uid(), n);
                      count[0]++;
                    }
                    return drop;
                  }));
    }
    return count[0];
  }

  /**
   * The node's plans once the agent reports: a plan ends when the report covers it (as many units
   * of each kind reported as planned); until then its unreported part still counts. Called inside
   * the node's compute.
   */
  Map<String, AssumedPlan> keptBeside(
      String node, NodeEntry old, Predicate<AssumedPlan> coveredByReport) {
    Map<String, AssumedPlan> plans = new LinkedHashMap<>(old == null ? Map.of() : old.assumed());
    plans
        .entrySet()
        .removeIf(
            e -> {
              boolean drop = coveredByReport.test(e.getValue());
              if (drop) {
                assumedNode.remove(e.getKey(), node);
              }
              return drop;
            });
    return plans;
  }

  /** The node went away: its plans went with it. */
  void nodeGone(String node, NodeEntry old) {
    old.assumed().keySet().forEach(uid -> assumedNode.remove(uid, node));
  }
}
