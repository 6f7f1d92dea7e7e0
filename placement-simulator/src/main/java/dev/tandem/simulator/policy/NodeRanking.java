package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.NodeState;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.model.DeviceKind;

/**
 * How kube-scheduler orders the nodes Tandem's filter kept. Smaller keys win; among equal keys one
 * node is drawn at random, as kube-scheduler's selectHost does.
 */
public enum NodeRanking {
  /**
   * As shipped: the allocator's score (Tandem's prioritize, topology-core's {@code PlacementScore})
   * alone.
   */
  SCORE {
    @Override
    long key(NodeState node, Allocation plan) {
      return 10 - plan.score();
    }
  },
  /**
   * What-if: the score, then the fewest free GPUs, as if kube-scheduler's NodeResourcesFit ran with
   * the {@code MostAllocated} scoring strategy over {@code nvidia.com/gpu}, weighted below Tandem's
   * score.
   */
  SCORE_THEN_MOST_ALLOCATED {
    @Override
    long key(NodeState node, Allocation plan) {
      return (10L - plan.score()) * 1_000 + node.free().freeUnits(DeviceKind.GPU);
    }
  },
  /**
   * What-if: the node with the fewest devices first (so nodes that alone can take the largest pods
   * stay free for them), then the fewest free GPUs, then the score. A static ranking by node size,
   * where the shipped score ranks by the devices a pod leaves free.
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
