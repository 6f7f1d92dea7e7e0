package dev.tandem.simulator.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.engine.PolicyResult;
import dev.tandem.simulator.engine.RunLimits;
import dev.tandem.simulator.engine.Simulation;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** DRA's first fit against Tandem's choice, on small machines whose slice order is known. */
class DraFirstFitTest {

  private static final AlignmentPolicy PREFERRED =
      new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.PREFERRED);

  private static PodSpec pod(int id, int gpus, int hcas, AlignmentPolicy policy) {
    return new PodSpec(id, id, gpus, hcas, policy, 1000);
  }

  private static PolicyResult run(PlacementPolicy policy, Cluster cluster, PodSpec... pods) {
    return new Simulation(cluster, List.of(pods), RunLimits.of(0, 7)).run(policy, share -> {});
  }

  private static Cluster cluster(Machine... machines) {
    return new Cluster(
        Arrays.stream(machines)
            .map(m -> new SimNode(m.nodeName(), m.nodeName(), new Allocator(LocalityIndex.of(m))))
            .toList());
  }

  @Test
  @DisplayName("first fit takes the 1+1 from the 2+1 switch, so the next 2+1 is turned away")
  void firstFitBreaksTheLargerSwitch() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 2, 1), new Switch(0, 1, 1)), 1);
    PodSpec small = pod(0, 1, 1, AlignmentPolicy.DEFAULT);
    PodSpec large = pod(1, 2, 1, AlignmentPolicy.DEFAULT);

    PolicyResult dra = run(DraFirstFit.alone(), node, small, large);
    assertEquals(1, dra.placed());
    assertEquals(1, dra.aligned());
    assertEquals(1, dra.turnedAway());

    PolicyResult joint = run(new JointMode(), node, small, large);
    assertEquals(2, joint.aligned());
    assertEquals(0, joint.turnedAway());
  }

  @Test
  @DisplayName("a preferred claim's first fit pairs the first GPU with any HCA: valid, not aligned")
  void preferredFirstFitIsValidButMisaligned() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 1, 0), new Switch(0, 1, 1)), 1);
    PodSpec p = pod(0, 1, 1, PREFERRED);

    PolicyResult dra = run(DraFirstFit.alone(), node, p);
    assertEquals(1, dra.placed());
    assertEquals(0, dra.aligned());

    assertEquals(1, run(new JointMode(), node, p).aligned());
  }

  @Test
  @DisplayName("a shape no node's devices can meet is unschedulable: it waits, then is turned away")
  void unsatisfiableClaimWaits() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 1, 1), new Switch(0, 1, 0)), 2);
    PodSpec p = pod(0, 2, 1, AlignmentPolicy.DEFAULT);
    Decision d = DraFirstFit.alone().place(p, new ClusterState(node), new Random(1));
    assertInstanceOf(Decision.Wait.class, d);
    PolicyResult dra = run(DraFirstFit.alone(), node, p);
    assertEquals(0, dra.placed());
    assertEquals(1, dra.turnedAway());
  }

  @Test
  @DisplayName("kube-scheduler's DRA score prefers the node where earlier alternatives succeed")
  void prioritizedListScore() {
    Cluster nodes =
        cluster(
            TestMachines.machine("split", new Switch(0, 1, 1), new Switch(0, 1, 1)),
            TestMachines.machine("whole", new Switch(0, 2, 2)));
    PodSpec p = pod(0, 2, 2, AlignmentPolicy.DEFAULT);
    assertEquals(Set.of(1), nodesChosen(DraFirstFit.alone(), p, nodes));
  }

  @Test
  @DisplayName("without Tandem's score the pod lands on either node; with it, on the fuller fit")
  void tandemScoreChoosesTheNode() {
    Cluster nodes =
        cluster(
            TestMachines.machine("big", new Switch(0, 2, 2)),
            TestMachines.machine("small", new Switch(0, 1, 1)));
    PodSpec p = pod(0, 1, 1, AlignmentPolicy.DEFAULT);
    assertEquals(Set.of(0, 1), nodesChosen(DraFirstFit.alone(), p, nodes));
    assertEquals(Set.of(1), nodesChosen(DraFirstFit.withTandemScore(), p, nodes));
  }

  @Test
  @DisplayName(
      "extended resources through DRA take the first free GPU and HCA, whatever the switch")
  void extendedResourcesTakeTheFirstFreeDevices() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 1, 0), new Switch(0, 1, 1)), 1);
    PodSpec p = pod(0, 1, 1, AlignmentPolicy.DEFAULT);
    Decision d = DraFirstFit.extendedResources().place(p, new ClusterState(node), new Random(1));
    Placement placed = assertInstanceOf(Decision.Placed.class, d).placement();
    assertEquals(List.of("GPU-n-0"), placed.gpuIds());
    assertEquals(List.of("mlx5_0"), placed.hcaIds());

    PolicyResult ext = run(DraFirstFit.extendedResources(), node, p);
    assertEquals(1, ext.placed());
    assertEquals(0, ext.aligned());
    assertEquals(1, run(DraFirstFit.alone(), node, p).aligned());
  }

  @Test
  @DisplayName("extended resources through DRA never hand out a device twice: the fifth 1+1 waits")
  void extendedResourcesNeverAllocateADeviceTwice() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 2, 2), new Switch(0, 2, 2)), 1);
    PodSpec[] pods = new PodSpec[5];
    for (int i = 0; i < pods.length; i++) {
      pods[i] = pod(i, 1, 1, AlignmentPolicy.DEFAULT);
    }
    PolicyResult ext = run(DraFirstFit.extendedResources(), node, pods);
    assertEquals(4, ext.placed());
    assertEquals(1, ext.turnedAway());
  }

  @Test
  @DisplayName("with Tandem's extender, extended resources go only where Tandem can align them")
  void extenderFiltersExtendedResourcePods() {
    Cluster nodes =
        cluster(
            TestMachines.machine("apart", new Switch(0, 1, 0), new Switch(0, 0, 1)),
            TestMachines.machine("paired", new Switch(0, 1, 1)));
    PodSpec p = pod(0, 1, 1, AlignmentPolicy.DEFAULT);
    assertEquals(Set.of(0, 1), nodesChosen(DraFirstFit.extendedResources(), p, nodes));
    assertEquals(Set.of(1), nodesChosen(DraFirstFit.extendedResourcesWithTandem(), p, nodes));

    Cluster apart =
        SmallClusters.of(TestMachines.machine("a", new Switch(0, 1, 0), new Switch(0, 0, 1)), 1);
    Decision d =
        DraFirstFit.extendedResourcesWithTandem().place(p, new ClusterState(apart), new Random(1));
    assertInstanceOf(Decision.Wait.class, d);
  }

  @Test
  @DisplayName("Tandem's extender cannot make DRA's first fit follow its plan")
  void extenderDoesNotChooseTheDevices() {
    Cluster node =
        SmallClusters.of(TestMachines.machine("n", new Switch(0, 1, 0), new Switch(0, 1, 1)), 1);
    PolicyResult ext =
        run(DraFirstFit.extendedResourcesWithTandem(), node, pod(0, 1, 1, AlignmentPolicy.DEFAULT));
    assertEquals(1, ext.placed());
    assertEquals(0, ext.aligned());
  }

  private static Set<Integer> nodesChosen(PlacementPolicy policy, PodSpec p, Cluster cluster) {
    ClusterState state = new ClusterState(cluster);
    Set<Integer> nodes = new HashSet<>();
    Random random = new Random(34);
    for (int i = 0; i < 40; i++) {
      Decision d = policy.place(p, state, random);
      nodes.add(assertInstanceOf(Decision.Placed.class, d).placement().node());
    }
    return nodes;
  }
}
