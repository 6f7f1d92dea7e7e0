package dev.tandem.simulator.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.policy.HintMode;
import dev.tandem.simulator.policy.JointMode;
import dev.tandem.simulator.policy.NodeRanking;
import dev.tandem.simulator.policy.StockKubernetes;
import dev.tandem.simulator.policy.TopologyManagerSingleNuma;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Policies on {@link SmallClusters#twoSockets}: 3 aligned 1+1 pairs, GPU-1 has no HCA. */
class SimulationTest {

  private static final Cluster NODE = SmallClusters.of(SmallClusters.twoSockets("n"), 1);

  private static PodSpec pod(int id, double at, int gpus, int hcas, double duration) {
    return new PodSpec(id, at, gpus, hcas, AlignmentPolicy.DEFAULT, duration);
  }

  private static PolicyResult run(PlacementPolicy policy, List<PodSpec> pods, double maxWait) {
    return new Simulation(NODE, pods, RunLimits.of(maxWait, 42)).run(policy, share -> {});
  }

  @Test
  @DisplayName("joint mode aligns three overlapping 1+1 pods and turns the fourth away")
  void jointFillsTheAlignedPairs() {
    List<PodSpec> pods =
        List.of(pod(0, 0, 1, 1, 10), pod(1, 0, 1, 1, 10), pod(2, 0, 1, 1, 10), pod(3, 0, 1, 1, 10));
    PolicyResult r = run(new JointMode(), pods, 0);
    assertEquals(3, r.aligned());
    assertEquals(1, r.turnedAway());
    assertEquals(0, r.waitingAtEnd());
  }

  @Test
  @DisplayName("with a maximum wait, a pod waits for an aligned pair and its wait is counted")
  void waiting() {
    List<PodSpec> pods =
        List.of(pod(0, 0, 1, 1, 10), pod(1, 0, 1, 1, 10), pod(2, 0, 1, 1, 10), pod(3, 1, 1, 1, 10));
    PolicyResult r = run(new JointMode(), pods, 100);
    assertEquals(4, r.aligned());
    assertEquals(3, r.alignedWithoutWait());
    assertEquals(9.0 / 4, r.meanWaitSeconds(), 1e-9);
  }

  @Test
  @DisplayName("Topology Manager admits 2+2 on socket 1 and rejects 3+1 (no NUMA node has 3 GPUs)")
  void topologyManager() {
    PolicyResult r =
        run(new TopologyManagerSingleNuma(), List.of(pod(0, 0, 2, 2, 5), pod(1, 10, 3, 1, 5)), 0);
    assertEquals(1, r.aligned());
    assertEquals(1, r.turnedAway());
  }

  @Test
  @DisplayName("stock Kubernetes places by counts: a 4+3 pod runs, unaligned (GPU-1 has no HCA)")
  void stockPlacesUnaligned() {
    PolicyResult r = run(new StockKubernetes(), List.of(pod(0, 0, 4, 3, 5)), 0);
    assertEquals(1, r.placed());
    assertEquals(0, r.aligned());
    PolicyResult joint = run(new JointMode(), List.of(pod(0, 0, 4, 3, 5)), 0);
    assertEquals(0, joint.placed());
  }

  @Test
  @DisplayName("hint mode aligns a lone 1+1 pod about 7/8 × 3/4 + 1/8 × 1/4 of the time")
  void hintModeOdds() {
    List<PodSpec> pods = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      pods.add(pod(i, 10 * i, 1, 1, 1));
    }
    PolicyResult r = run(new HintMode(), pods, 0);
    assertEquals(0.6875, r.aligned() / 4000.0, 0.03);
  }

  @Test
  @DisplayName("joint mode puts a 1+1 pod on the smaller node and keeps the 8-pair node for 8+8")
  void keepsTheBigNodeWhole() {
    List<SimNode> nodes =
        new ArrayList<>(SmallClusters.of(SmallClusters.eightPairs("big"), 1).nodes());
    nodes.addAll(NODE.nodes());
    Cluster mixed = new Cluster(nodes);
    List<PodSpec> pods = List.of(pod(0, 0, 1, 1, 100), pod(1, 1, 8, 8, 10));
    for (PlacementPolicy joint :
        List.of(new JointMode(), new JointMode(NodeRanking.SMALLEST_NODE_FIRST))) {
      PolicyResult r = new Simulation(mixed, pods, RunLimits.of(0, 1)).run(joint, share -> {});
      assertEquals(2, r.aligned(), joint.name());
    }
  }

  @Test
  @DisplayName("a run past its deadline stops with what it has and says it is partial")
  void deadline() {
    List<PodSpec> pods = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      pods.add(pod(i, i, 1, 1, 1));
    }
    RunLimits past = new RunLimits(0, System.nanoTime() - 1, 1, 10);
    PolicyResult r = new Simulation(NODE, pods, past).run(new JointMode(), share -> {});
    assertTrue(r.partial());
    assertTrue(r.pods() < 1000);
    assertFalse(run(new JointMode(), pods, 0).partial());
  }
}
