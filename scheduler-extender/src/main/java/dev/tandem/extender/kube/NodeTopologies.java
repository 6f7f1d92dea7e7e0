package dev.tandem.extender.kube;

import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.extender.state.ReportedAllocation;
import java.util.ArrayList;
import java.util.List;

/** Reads what the extender needs from a NodeTopology besides the tree (the mapper's job). */
public final class NodeTopologies {

  private NodeTopologies() {}

  /**
   * The allocations the agent reports; entries without a pod UID cannot be matched and are kept.
   */
  public static List<ReportedAllocation> allocations(NodeTopology resource) {
    if (resource.getStatus() == null) {
      return List.of();
    }
    List<ReportedAllocation> out = new ArrayList<>();
    for (AllocationEntry a : resource.getStatus().allocations()) {
      out.add(
          new ReportedAllocation(
              a.namespace(),
              a.pod(),
              a.podUid() == null ? "" : a.podUid(),
              a.container(),
              a.resource(),
              a.deviceIds()));
    }
    return out;
  }
}
