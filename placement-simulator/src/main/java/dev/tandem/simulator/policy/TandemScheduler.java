package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.NodeState;
import dev.tandem.simulator.workload.GangMember;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.rail.RailSets;
import java.util.Optional;
import java.util.Random;
import java.util.SortedSet;
import java.util.function.Function;

/**
 * kube-scheduler with Tandem's extender: filter keeps the nodes where topology-core's allocator
 * finds a set that meets the pod's policy, the nodes are ranked ({@link NodeRanking}: as shipped,
 * by the allocator's score, 0..10, the extender's prioritize), and bind writes the allocator's
 * choice on the best node as the plan. Ties go to a node drawn uniformly among the best, as
 * kube-scheduler's selectHost does, from the run's seeded source.
 *
 * <p>A member of a gang of two or more (docs/rails.md, "Gangs") is planned on the gang's rails: the
 * rails of its first running member, else those the first member's {@link GangRailChoice} picks,
 * through topology-core's {@code RailSets.onRails} (the allocator sees only the HCAs on those
 * rails). With {@code rail-alignment: required} only nodes with an aligned set on those rails pass
 * the filter; with {@code preferred} they rank first, and when there is none the member is planned
 * as a pod alone.
 */
final class TandemScheduler {

  /** The first member's rail choice. */
  static final GangRailChoice FIRST_MEMBER = GangRailChoice.ALLOCATORS_PLAN;

  private TandemScheduler() {}

  /** The node and plan bind would write, or null when filter leaves no node. */
  static Plan plan(PodSpec pod, ClusterState state, NodeRanking ranking, Random random) {
    GangMember gang = pod.gang();
    if (gang == null || gang.size() == 1) {
      return best(pod, state, ranking, random, NodeState::free);
    }
    Optional<SortedSet<Integer>> rails = state.gangs().rails(gang.name());
    if (rails.isEmpty()) {
      rails = FIRST_MEMBER.choose(pod, state);
    }
    if (rails.isEmpty()) {
      return best(pod, state, ranking, random, NodeState::free);
    }
    SortedSet<Integer> on = rails.get();
    Plan onRails = best(pod, state, ranking, random, n -> RailSets.onRails(n.free(), on));
    if (onRails != null || gang.railAlignment() == AlignmentMode.REQUIRED) {
      return onRails;
    }
    return best(pod, state, ranking, random, NodeState::free);
  }

  /** The best node's plan on what {@code free} says each node has free; null when none fits. */
  private static Plan best(
      PodSpec pod,
      ClusterState state,
      NodeRanking ranking,
      Random random,
      Function<NodeState, Availability> free) {
    Plan best = null;
    long bestKey = Long.MAX_VALUE;
    int ties = 0;
    for (int i = 0; i < state.nodes().size(); i++) {
      NodeState n = state.node(i);
      AllocationResult r = n.node().allocator().allocate(pod.request(), free.apply(n));
      if (r instanceof Allocation a) {
        long key = ranking.key(n, a);
        if (key < bestKey) {
          best = new Plan(i, a);
          bestKey = key;
          ties = 1;
        } else if (key == bestKey && random.nextInt(++ties) == 0) {
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
