package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.NodeState;
import dev.tandem.simulator.workload.GangMember;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.rail.GangRails;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SortedSet;
import java.util.function.Function;
import java.util.function.ToLongBiFunction;

/**
 * kube-scheduler with Tandem's extender: filter keeps the nodes where topology-core's allocator
 * finds a set that meets the pod's policy, the nodes are ranked ({@link NodeRanking}: as shipped,
 * by the allocator's score, 0..10, the extender's prioritize), and bind writes the allocator's
 * choice on the best node as the plan. Ties go to a node drawn uniformly among the best, as
 * kube-scheduler's selectHost does, from the run's seeded source.
 *
 * <p>A member of a gang of two or more is planned on the gang's rails as the extender plans it
 * (docs/rails.md, "Planning a gang"), through topology-core's {@code GangRails}: the gang's rails
 * are the set the most running members' plans are on; when none runs (the first member, or the
 * gang's members all gone), the set {@code GangRails.choose} picks over every node (the rails that
 * leave the most members placeable). Each node is planned by {@code GangRails.plan} (the allocator
 * on the node narrowed to those rails, scored as the pod alone). With {@code rail-alignment:
 * required} only nodes with such a plan pass the filter; with {@code preferred} they score what the
 * pod scores there alone and every other node 0, so they rank first, and when there is none every
 * node scores 0 (kube-scheduler draws one at random) and the member gets the node's plain plan. An
 * empty choice (no HCA asked, no railed plan) plans members as pods alone.
 */
final class TandemScheduler {

  private TandemScheduler() {}

  /** The node and plan bind would write, or null when filter leaves no node. */
  static Plan plan(PodSpec pod, ClusterState state, NodeRanking ranking, Random random) {
    return plan(pod, state, ranking, random, true);
  }

  /**
   * As {@link #plan(PodSpec, ClusterState, NodeRanking, Random)}; with {@code gangs} false every
   * pod is planned alone, as the extender did before gangs (a what-if).
   */
  static Plan plan(
      PodSpec pod, ClusterState state, NodeRanking ranking, Random random, boolean gangs) {
    GangMember gang = pod.gang();
    if (!gangs || gang == null || gang.size() == 1) {
      return best(state, ranking::key, random, n -> plainPlan(pod, n));
    }
    SortedSet<Integer> rails =
        state.gangs().rails(gang.name()).orElseGet(() -> firstMemberRails(pod, state));
    if (rails.isEmpty()) {
      return best(state, ranking::key, random, n -> plainPlan(pod, n));
    }
    Plan onRails =
        best(
            state,
            ranking::key,
            random,
            n -> GangRails.plan(n.node().allocator(), pod.request(), n.free(), rails));
    if (onRails != null || gang.railAlignment() == AlignmentMode.REQUIRED) {
      return onRails;
    }
    return best(state, (n, a) -> 0, random, n -> plainPlan(pod, n));
  }

  /** The rails the gang's first member picks: those that leave the most members placeable. */
  private static SortedSet<Integer> firstMemberRails(PodSpec pod, ClusterState state) {
    List<GangRails.Candidate> candidates = new ArrayList<>();
    for (NodeState n : state.nodes()) {
      candidates.add(new GangRails.Candidate(n.node().allocator(), n.free()));
    }
    return GangRails.choose(pod.request(), candidates);
  }

  private static AllocationResult plainPlan(PodSpec pod, NodeState n) {
    return n.node().allocator().allocate(pod.request(), n.free());
  }

  /**
   * The node with the smallest {@code key} of its plan from {@code planner}, ties drawn at random;
   * null when no node has a plan.
   */
  private static Plan best(
      ClusterState state,
      ToLongBiFunction<NodeState, Allocation> key,
      Random random,
      Function<NodeState, AllocationResult> planner) {
    Plan best = null;
    long bestKey = Long.MAX_VALUE;
    int ties = 0;
    for (int i = 0; i < state.nodes().size(); i++) {
      NodeState n = state.node(i);
      AllocationResult r = planner.apply(n);
      if (r instanceof Allocation a) {
        long k = key.applyAsLong(n, a);
        if (k < bestKey) {
          best = new Plan(i, a);
          bestKey = k;
          ties = 1;
        } else if (k == bestKey && random.nextInt(++ties) == 0) {
          best = new Plan(i, a); // each of the tied nodes is kept with probability 1/ties
        }
      }
    }
    return best;
  }

  /**
   * The plan annotation's content.
   *
   * @param node index of the node
   * @param allocation the devices planned
   */
  record Plan(int node, Allocation allocation) {}
}
