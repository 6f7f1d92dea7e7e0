package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "filter and prioritize: a call with an allocation budget answers as without one, or hands over")
class AllocationBudgetTest {

  /** HCAs with 2 shared slots each: their verdicts need the allocator, which the budget counts. */
  private final ClusterState state = cluster(2);

  private final NodeEvaluator evaluator = new NodeEvaluator(10_000);
  private final FilterVerb filterVerb = new FilterVerb(evaluator);
  private final PrioritizeVerb prioritizeVerb = new PrioritizeVerb(evaluator);
  private final List<String> names = new ArrayList<>();

  AllocationBudgetTest() {
    for (int i = 0; i < 10; i++) {
      names.add("node-" + i);
    }
    names.add("unknown-node");
  }

  /**
   * Ten nodes: even ones put 2 GPUs + 2 HCAs under one switch; odd ones split them across NUMA
   * nodes.
   */
  private static ClusterState cluster(int slotsPerHca) {
    ClusterState state = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
    for (int i = 0; i < 10; i++) {
      String name = "node-" + i;
      state.putTopology(
          i % 2 == 0
              ? TestMachines.machine(name, new Switch(0, 2, 2), new Switch(1, 2, 2))
              : TestMachines.machine(name, new Switch(0, 4, 0), new Switch(1, 0, 4)),
          slotsPerHca,
          List.of());
    }
    return state;
  }

  private static PodRequest pod(int gpus, int hcas) {
    return PodRequests.DEFAULT.of(TestPods.pod("" + gpus, "" + hcas, Map.of()));
  }

  private FilterVerdict filter(PodRequest pod, List<String> nodes) {
    return filter(pod, nodes, AllocationBudget.UNLIMITED);
  }

  private FilterVerdict filter(PodRequest pod, List<String> nodes, int allocations) {
    return filterVerb.verdict(pod, CandidateNodes.of(state.directory(), nodes), allocations);
  }

  private int[] prioritize(PodRequest pod, List<String> nodes) {
    return prioritize(pod, nodes, AllocationBudget.UNLIMITED);
  }

  private int[] prioritize(PodRequest pod, List<String> nodes, int allocations) {
    return prioritizeVerb.scores(pod, CandidateNodes.of(state.directory(), nodes), allocations);
  }

  @Test
  @DisplayName(
      "more unknown answers than the budget: null, and the answers computed so far are kept")
  void overBudgetHandsOver() {
    PodRequest pod = pod(2, 2);
    assertNull(filter(pod, names, 3), "10 nodes need the allocator, the budget is 3");
    assertNull(filter(pod, names, 3), "3 more are known now, 4 still need it");
    assertNotNull(filter(pod, names, 4));
    assertNotNull(filter(pod, names, 0), "every answer is remembered now");
    assertNotNull(prioritize(pod, names, 0));
  }

  @Test
  @DisplayName("within the budget the verdict and scores equal those of an unbounded call")
  void sameAnswers() {
    PodRequest pod = pod(2, 2);
    FilterVerdict unbounded = filter(pod, names);
    FilterVerdict bounded = filter(pod, names, 0);
    assertArrayEquals(unbounded.passed(), bounded.passed());
    assertArrayEquals(unbounded.reasons(), bounded.reasons());
    assertArrayEquals(unbounded.unresolvable(), bounded.unresolvable());
    assertArrayEquals(prioritize(pod, names), prioritize(pod, names, 0));
    for (int i = 0; i < 10; i++) {
      assertEquals(i % 2 == 0, bounded.passed()[i], names.get(i));
    }
    assertEquals(Outcome.NO_TOPOLOGY_REASON, bounded.reasons()[10]);
  }

  @Test
  @DisplayName(
      "a changed node needs the allocator again: its remembered answer is for its old entry")
  void changedNodeIsRecomputed() {
    PodRequest pod = pod(2, 2);
    filter(pod, names);
    state.putTopology(TestMachines.machine("node-1", new Switch(0, 2, 2)), 2, List.of());
    assertNull(filter(pod, names, 0));
    FilterVerdict v = filter(pod, names, 1);
    assertEquals(true, v.passed()[1], "node-1 now has a switch with 2 GPUs and 2 HCAs");
  }

  @Test
  @DisplayName(
      "nodes of whole GPUs and HCAs are judged from their counts: a new shape never hands over")
  void wholeDevicesNeedNoBudget() {
    ClusterState whole = cluster(1);
    FilterVerdict v = filterVerb.verdict(pod(2, 2), CandidateNodes.of(whole.directory(), names), 0);
    assertNotNull(v, "10 nodes never seen with this pod, decided on the caller's thread");
    for (int i = 0; i < 10; i++) {
      assertEquals(i % 2 == 0, v.passed()[i], names.get(i));
    }
    assertArrayEquals(
        filterVerb
            .verdict(
                pod(2, 2), CandidateNodes.of(state.directory(), names), AllocationBudget.UNLIMITED)
            .reasons(),
        v.reasons(),
        "the same reasons as the allocator gives on shared slots");
  }
}
