package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.NodeState;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.model.DeviceKind;

/**
 * How kube-scheduler orders the nodes Tandem's filter kept. Smaller keys win; equal keys go to the
 * first node in cluster order.
 */
public enum NodeRanking {
  /** As shipped: the allocator's score (Tandem's prioritize) alone. */
  SCORE {
    @Override
    long key(NodeState node, Allocation plan) {
      return 10 - plan.score();
    }
  },
  /**
   * The score, then the fewest free GPUs: NodeResourcesFit with the {@code MostAllocated} scoring
   * strategy over {@code nvidia.com/gpu}, weighted below Tandem's score.
   */
  SCORE_THEN_MOST_ALLOCATED {
    @Override
    long key(NodeState node, Allocation plan) {
      return (10L - plan.score()) * 1_000 + node.free().freeUnits(DeviceKind.GPU);
    }
  },
  /**
   * A what-if prioritize: the node with the fewest devices first (so nodes that alone can take the
   * largest pods stay free for them), then the fewest free GPUs, then the score.
   */
  SMALLEST_NODE_FIRST {
    @Override
    long key(NodeState node, Allocation plan) {
      long size = node.node().count(DeviceKind.GPU) * 1_000L + node.node().count(DeviceKind.HCA);
      return size * 100_000 + node.free().freeUnits(DeviceKind.GPU) * 100L + (10 - plan.score());
    }
  };

  abstract long key(NodeState node, Allocation plan);
}
