package dev.tandem.simulator.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The devices a pod got.
 *
 * @param node index of the node in the cluster
 * @param gpuIds GPUs, as the kubelet names them
 * @param hcaIds HCA units, as the kubelet names them
 * @param plannedHcaIds the HCAs of the scheduler's plan, where the pod's gang's rails are read
 *     (docs/rails.md: the extender reads them from the bound members' plans); the HCAs it got when
 *     nothing plans
 */
public record Placement(
    int node, List<String> gpuIds, List<String> hcaIds, List<String> plannedHcaIds) {

  public Placement {
    gpuIds = List.copyOf(gpuIds);
    hcaIds = List.copyOf(hcaIds);
    plannedHcaIds = List.copyOf(plannedHcaIds);
  }

  /** Devices given as planned, or where nothing plans. */
  public Placement(int node, List<String> gpuIds, List<String> hcaIds) {
    this(node, gpuIds, hcaIds, hcaIds);
  }

  public List<String> deviceIds() {
    List<String> all = new ArrayList<>(gpuIds);
    all.addAll(hcaIds);
    return all;
  }
}
