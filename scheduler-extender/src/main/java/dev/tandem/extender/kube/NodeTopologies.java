package dev.tandem.extender.kube;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.extender.state.ReportedAllocation;
import java.util.ArrayList;
import java.util.List;

/** Reads what the extender needs from a NodeTopology besides the tree (the mapper's job). */
public final class NodeTopologies {

  private NodeTopologies() {}

  /** The kubelet's devices per device of the tree, as the agent counted them. */
  public static DeviceUnits units(NodeTopology resource, ResourceNames resources) {
    return resource.getStatus() == null
        ? DeviceUnits.UNCOUNTED
        : DeviceUnits.of(resource.getStatus().units(), resources);
  }

  /** Which GPU each MIG device belongs to, as the agent read it from NVML. */
  public static MigLayout mig(NodeTopology resource) {
    return resource.getStatus() == null ? MigLayout.NONE : MigLayout.of(resource.getStatus().mig());
  }

  /**
   * The allocations of the GPU and HCA resources the agent reports (it reports every device
   * resource of a container, and devices held through DRA claims under the GPU or HCA resource of
   * the device they stand for, so they count as held); entries without a pod UID cannot be matched
   * and are kept.
   */
  public static List<ReportedAllocation> allocations(
      NodeTopology resource, ResourceNames resources) {
    if (resource.getStatus() == null) {
      return List.of();
    }
    List<ReportedAllocation> out = new ArrayList<>();
    for (AllocationEntry a : resource.getStatus().allocations()) {
      if (!resources.governs(a.resource())) {
        continue;
      }
      out.add(
          new ReportedAllocation(
              a.namespace(),
              a.pod(),
              a.podUid() == null ? "" : a.podUid(),
              a.container(),
              a.resource(),
              a.deviceIds(),
              a.claim(),
              a.driver()));
    }
    return out;
  }
}
