package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.NodeState;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationResult;
import java.util.Random;

/**
 * kube-scheduler with Tandem's extender: filter keeps the nodes where topology-core's allocator
 * finds a set that meets the pod's policy, the nodes are ranked ({@link NodeRanking}: as shipped,
 * by the allocator's score, 0..10, the extender's prioritize), and bind writes the allocator's
 * choice on the best node as the plan. Ties go to a node drawn uniformly among the best, as
 * kube-scheduler's selectHost does, from the run's seeded source.
 */
final class TandemScheduler {

  private TandemScheduler() {}

  /** The node and plan bind would write, or null when filter leaves no node. */
  static Plan plan(PodSpec pod, ClusterState state, NodeRanking ranking, Random random) {
    Plan best = null;
    long bestKey = Long.MAX_VALUE;
    int ties = 0;
    for (int i = 0; i < state.nodes().size(); i++) {
      NodeState n = state.node(i);
      AllocationResult r = n.node().allocator().allocate(pod.request(), n.free());
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
