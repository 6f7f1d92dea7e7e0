package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.NodeState;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Stock kube-scheduler: NodeResourcesFit keeps the nodes with enough free {@code nvidia.com/gpu}
 * and {@code rdma/hca}; its default scoring (LeastAllocated over cpu and memory) does not weigh
 * extended resources, so GPU nodes tie and selectHost picks among them uniformly at random.
 */
final class CountScheduler {

  /** Why a pod waits when no node has its counts free. */
  static final String NO_NODE = "no node has the GPUs and HCAs free";

  private CountScheduler() {}

  /** Index of the chosen node, or -1 when none has the counts free. */
  static int pick(PodSpec pod, ClusterState state, Random random) {
    List<Integer> fit = new ArrayList<>();
    for (int i = 0; i < state.nodes().size(); i++) {
      NodeState n = state.node(i);
      if (n.free().freeUnits(DeviceKind.GPU) >= pod.gpus()
          && n.free().freeUnits(DeviceKind.HCA) >= pod.hcas()) {
        fit.add(i);
      }
    }
    return fit.isEmpty() ? -1 : fit.get(random.nextInt(fit.size()));
  }
}
