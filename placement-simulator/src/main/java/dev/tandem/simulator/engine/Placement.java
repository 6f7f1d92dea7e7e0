package dev.tandem.simulator.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The devices a pod got.
 *
 * @param node index of the node in the cluster
 * @param gpuIds GPUs, as the kubelet names them
 * @param hcaIds HCA units, as the kubelet names them
 */
public record Placement(int node, List<String> gpuIds, List<String> hcaIds) {

  public Placement {
    gpuIds = List.copyOf(gpuIds);
    hcaIds = List.copyOf(hcaIds);
  }

  public List<String> deviceIds() {
    List<String> all = new ArrayList<>(gpuIds);
    all.addAll(hcaIds);
    return all;
  }
}
