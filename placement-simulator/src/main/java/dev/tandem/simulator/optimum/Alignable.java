package dev.tandem.simulator.optimum;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Availability;
import java.util.HashMap;
import java.util.Map;

/** Whether a pod's shape can be aligned on some node of the cluster when that node is empty. */
final class Alignable {

  private Alignable() {}

  static boolean anywhere(Cluster cluster, PodSpec pod) {
    Map<Object, Boolean> seen = new HashMap<>();
    for (SimNode n : cluster.nodes()) {
      boolean fits =
          seen.computeIfAbsent(
              n.allocator(),
              a ->
                  n.allocator()
                      .allocate(pod.request(), Availability.allFree(n.index(), 1))
                      .feasible());
      if (fits) {
        return true;
      }
    }
    return false;
  }
}
