package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * What a node without Tandem gives a pod: NVIDIA's plugin's GPUs ({@link NvidiaPackedGpus}) and a
 * plain RDMA plugin's HCAs, which the kubelet picks at random ({@link KubeletChoice}).
 */
final class StockPlugins {

  private StockPlugins() {}

  /**
   * The pod's devices on a node, among those {@code where} accepts (the Topology Manager's NUMA
   * node), or null when there are not enough of them.
   */
  static Placement devices(
      int node, Availability free, PodSpec pod, Predicate<Device> where, Random random) {
    List<String> gpus = NvidiaPackedGpus.choose(free, pod.gpus(), where);
    List<String> hcas = KubeletChoice.random(free, DeviceKind.HCA, pod.hcas(), where, random);
    return gpus.size() == pod.gpus() && hcas.size() == pod.hcas()
        ? new Placement(node, gpus, hcas)
        : null;
  }
}
