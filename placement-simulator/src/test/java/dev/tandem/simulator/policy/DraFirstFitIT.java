package dev.tandem.simulator.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.fixtures.Topologies;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.ClusterSpec;
import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * On each topology of docs/placement.md's 100-node cluster, empty, the DRA policy places a pod
 * exactly when joint mode does: the simulated nodes offer DRA the same devices they offer Tandem,
 * although the files name no HCA ports (the driver would leave such HCAs out).
 */
class DraFirstFitIT {

  @Test
  @DisplayName("on every node type of the 100-node cluster, DRA places each shape iff joint does")
  void sameDevicesAsJointMode() {
    for (String file :
        List.of(
            "nccl-topo/azure-ndv5-h100.xml",
            "nccl-topo/azure-ndv4-a100.xml",
            "nccl-topo/aws-p4d.24xlarge.xml",
            "dell-poweredge-xe8640-h100x4.xml")) {
      Cluster node = ClusterSpec.load(List.of(new ClusterSpec(Topologies.path(file), 1)));
      for (int n = 1; n <= 8; n++) {
        PodSpec pod = new PodSpec(0, 0, n, n, AlignmentPolicy.DEFAULT, 1);
        assertEquals(
            placed(new JointMode().place(pod, new ClusterState(node), new Random(1))),
            placed(DraFirstFit.alone().place(pod, new ClusterState(node), new Random(1))),
            file + " " + pod.shape());
      }
    }
  }

  private static boolean placed(Decision d) {
    return d instanceof Decision.Placed;
  }
}
