package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.DeviceKind;
import java.util.List;
import java.util.Random;

/**
 * Stock Kubernetes: the scheduler places by counts ({@link CountScheduler}), NVIDIA's plugin picks
 * GPUs by GPU-GPU affinity ({@link NvidiaPackedGpus}), and a plain RDMA plugin gives no preference,
 * so the kubelet picks HCAs at random ({@link KubeletChoice}), without topology.
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
      return new Decision.Wait("no node has the GPUs and HCAs free");
    }
    Availability free = state.node(node).free();
    List<String> gpus = NvidiaPackedGpus.choose(free, pod.gpus(), d -> true);
    List<String> hcas = KubeletChoice.random(free, DeviceKind.HCA, pod.hcas(), d -> true, random);
    return new Decision.Placed(new Placement(node, gpus, hcas));
  }
}
