package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import java.util.Random;

/**
 * Stock Kubernetes: the scheduler places by counts ({@link CountScheduler}), NVIDIA's plugin picks
 * GPUs by GPU-GPU affinity and a plain RDMA plugin gives no preference, so the kubelet picks HCAs
 * at random ({@link StockPlugins}), without topology.
 */
public final class StockKubernetes implements PlacementPolicy {

  @Override
  public String name() {
    return "stock";
  }

  @Override
  public String description() {
    return "stock Kubernetes: placed by counts, GPUs by NVIDIA's packed affinity, HCAs by the"
        + " kubelet without topology";
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    int node = CountScheduler.pick(pod, state, random);
    if (node < 0) {
      return new Decision.Wait(CountScheduler.NO_NODE);
    }
    // the scheduler counted the devices free on this node: the plugins can always give them
    return new Decision.Placed(
        StockPlugins.devices(node, state.node(node).free(), pod, d -> true, random));
  }
}
