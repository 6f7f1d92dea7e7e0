package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "mixed clusters: a node without a NodeTopology is refused only to GPUs + HCAs with required alignment")
class NodesWithoutTopologyTest {

  private static final List<String> NODES = List.of("pix-node", "plain-node");

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
  private final NodeEvaluator evaluator = new NodeEvaluator(1_000);

  NodesWithoutTopologyTest() {
    state.putTopology(TestMachines.pixNode(), 1, List.of());
  }

  private static PodRequest pod(String gpus, String hcas, String mode) {
    return PodRequests.DEFAULT.of(
        TestPods.pod(
            gpus, hcas, mode == null ? Map.of() : Map.of(AlignmentPolicy.MODE_ANNOTATION, mode)));
  }

  private FilterVerdict filter(PodRequest pod) {
    return new FilterVerb(evaluator)
        .verdict(pod, CandidateNodes.of(state.directory(), NODES), AllocationBudget.UNLIMITED);
  }

  private int[] scores(PodRequest pod) {
    return new PrioritizeVerb(evaluator)
        .scores(pod, CandidateNodes.of(state.directory(), NODES), AllocationBudget.UNLIMITED);
  }

  @ParameterizedTest(name = "{0} GPUs + {1} HCAs, {2}")
  @CsvSource(
      nullValues = "-",
      value = {"1,-,-", "-,1,-", "4,-,required", "-,2,preferred", "2,2,preferred"})
  @DisplayName(
      "one kind, or preferred alignment: the node without a topology passes, counted apart")
  void passes(String gpus, String hcas, String mode) {
    PodRequest pod = pod(gpus, hcas, mode);
    assertFalse(pod.needsTopology());
    FilterVerdict v = filter(pod);
    assertTrue(v.passed()[1], "plain-node must pass");
    assertNull(v.reasons()[1]);
    assertEquals(1, v.counts()[Outcome.PASSED_WITHOUT_TOPOLOGY.ordinal()]);
    assertEquals(0, v.counts()[Outcome.NO_TOPOLOGY.ordinal()]);
  }

  @ParameterizedTest(name = "{0} GPUs + {1} HCAs, mode {2}")
  @CsvSource(
      nullValues = "-",
      value = {"1,1,-", "2,2,required"})
  @DisplayName(
      "GPUs + HCAs with required alignment: the node without a topology is unresolvable, with the reason")
  void refused(String gpus, String hcas, String mode) {
    PodRequest pod = pod(gpus, hcas, mode);
    assertTrue(pod.needsTopology());
    FilterVerdict v = filter(pod);
    assertTrue(v.passed()[0], "pix-node puts them under one switch");
    assertFalse(v.passed()[1]);
    assertTrue(v.failedIn(1, true), "unresolvable: preemption cannot give a node a topology");
    assertEquals(Outcome.NO_TOPOLOGY_REASON, v.reasons()[1]);
    assertTrue(v.reasons()[1].contains("is the tandem agent running on it?"), v.reasons()[1]);
    assertEquals(1, v.counts()[Outcome.NO_TOPOLOGY.ordinal()]);
  }

  @Test
  @DisplayName(
      "prioritize: one kind scores 10 on a node without a topology; GPUs + HCAs score 0 there")
  void scoresWithoutTopology() {
    int[] gpuOnly = scores(pod("1", null, null));
    assertEquals(PrioritizeVerb.UNGOVERNED, gpuOnly[1]);
    assertEquals(10, gpuOnly[1]);
    assertTrue(gpuOnly[0] > 0 && gpuOnly[0] <= 10, "the topology node still scores its fit");
    assertEquals(10, scores(pod(null, "1", null))[1]);
    assertEquals(0, scores(pod("1", "1", "preferred"))[1]);
    assertEquals(0, scores(pod("1", "1", null))[1]);
    assertArrayEquals(new int[] {0, 0}, scores(pod(null, null, null)), "not interested");
  }

  @Test
  @DisplayName("a node with a topology still judges a one-kind pod by its free devices")
  void topologyNodeStillCounts() {
    FilterVerdict v = filter(pod("8", null, null));
    assertFalse(v.passed()[0]);
    assertEquals("node has 4 free healthy GPUs, pod needs 8", v.reasons()[0]);
    assertTrue(v.passed()[1], "plain-node: kube-scheduler's own fit check counts its GPUs");
  }
}
