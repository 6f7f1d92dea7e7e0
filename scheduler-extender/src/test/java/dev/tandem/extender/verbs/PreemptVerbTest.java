package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.state.AssignedPod;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "preempt: the fewest proposed victims whose devices free an aligned set, or the node dropped")
class PreemptVerbTest {

  /**
   * sw0: 2 GPUs, no HCA; sw1: 2 HCAs, no GPU; sw2 and sw3: 1 GPU + 1 HCA each. Pods a and b hold a
   * GPU of sw0 and an HCA of sw1 (never aligned under a switch); c and d the pairs of sw2 and sw3.
   */
  private static final Machine MIXED =
      TestMachines.machine(
          "mixed",
          new Switch(0, 2, 0),
          new Switch(0, 0, 2),
          new Switch(1, 1, 1),
          new Switch(1, 1, 1));

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
  private final Map<String, AssignedPod> known = new HashMap<>();
  private final PodSource pods =
      new PodSource() {
        @Override
        public Future<JsonObject> pod(PodRef ref) {
          return Future.failedFuture("not in this test");
        }

        @Override
        public AssignedPod assigned(String uid) {
          return known.get(uid);
        }
      };
  private final PreemptVerb verb = new PreemptVerb(state, pods);

  PreemptVerbTest() {
    state.putTopology(
        MIXED,
        1,
        List.of(
            held("a", "GPU-mixed-0", "mlx5_0"),
            held("b", "GPU-mixed-1", "mlx5_1"),
            held("c", "GPU-mixed-2", "mlx5_2"),
            held("d", "GPU-mixed-3", "mlx5_3")));
    // pix-node: two switches of 2 GPUs + 2 HCAs; p and q fill switch 0, r and s switch 1
    state.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            held("p", "GPU-pix-node-0", "mlx5_0"),
            held("q", "GPU-pix-node-1", "mlx5_1"),
            held("r", "GPU-pix-node-2", "mlx5_2"),
            held("s", "GPU-pix-node-3", "mlx5_3")));
    state.putTopology(TestMachines.gpuOnly(), 1, List.of());
    state.nodeObject("plain-node", true);
    priorities("mixed", Map.of("a", 1, "b", 2, "c", 5, "d", 6, "e", 0));
    priorities("pix-node", Map.of("p", 10, "q", 20, "r", 1, "s", 2));
  }

  private static ReportedAllocation held(String uid, String... devices) {
    return new ReportedAllocation("ml", uid, uid, "main", "nvidia.com/gpu", List.of(devices));
  }

  private void priorities(String node, Map<String, Integer> byUid) {
    byUid.forEach((uid, p) -> known.put(uid, new AssignedPod(new PodRef("ml", uid, uid), node, p)));
  }

  private static PodRequest pod(int gpus, int hcas, String mode) {
    return PodRequests.DEFAULT.of(
        TestPods.pod(
            gpus == 0 ? null : String.valueOf(gpus),
            hcas == 0 ? null : String.valueOf(hcas),
            mode == null ? Map.of() : Map.of(AlignmentPolicy.MODE_ANNOTATION, mode)));
  }

  private static ProposedVictims meta(long pdb, String... uids) {
    List<ProposedVictim> v = new ArrayList<>();
    for (String uid : uids) {
      v.add(ProposedVictim.meta(uid));
    }
    return new ProposedVictims(v, pdb);
  }

  private PreemptionResult preempt(PodRequest pod, String node, ProposedVictims victims) {
    Map<String, ProposedVictims> m = new LinkedHashMap<>();
    m.put(node, victims);
    return verb.preempt(pod, m);
  }

  private void assertVictims(
      PreemptionResult r, String node, PreemptOutcome outcome, String... uids) {
    assertEquals(outcome, r.outcomes().get(node), r.toString());
    if (outcome.kept()) {
      assertEquals(List.of(uids), r.candidates().get(node).uids(), r.toString());
    } else {
      assertFalse(r.candidates().containsKey(node), "node " + node + " must be dropped: " + r);
    }
  }

  @Test
  @DisplayName("of all four pods, only the two whose pairs sit under switches are answered")
  void trimsToTheAlignedPair() {
    PreemptionResult r = preempt(pod(2, 2, null), "mixed", meta(3, "d", "c", "b", "a"));
    assertVictims(r, "mixed", PreemptOutcome.TRIMMED, "d", "c");
    assertEquals(2, r.candidates().get("mixed").pdbViolations(), "at most as many as victims");
  }

  @Test
  @DisplayName("victims whose devices never align under a switch: the node is dropped")
  void dropsWhenNoSubsetAligns() {
    assertVictims(
        preempt(pod(2, 2, null), "mixed", meta(0, "b", "a")), "mixed", PreemptOutcome.NOT_ALIGNED);
  }

  @Test
  @DisplayName("every proposed victim needed: the proposal is kept as it is")
  void keepsANeededProposal() {
    assertVictims(
        preempt(pod(2, 2, null), "mixed", meta(0, "d", "c")),
        "mixed",
        PreemptOutcome.KEPT,
        "d",
        "c");
  }

  @Test
  @DisplayName("a victim that holds no device is kept: kube-scheduler chose it for other resources")
  void keepsVictimsWithoutDevices() {
    assertVictims(
        preempt(pod(2, 2, null), "mixed", meta(0, "e", "d", "a", "c")),
        "mixed",
        PreemptOutcome.TRIMMED,
        "e",
        "d",
        "c");
  }

  @Test
  @DisplayName("among equally few victims, the lower highest priority wins")
  void lowestPriorityAmongTheFewest() {
    PreemptionResult r = preempt(pod(2, 2, null), "pix-node", meta(0, "q", "p", "s", "r"));
    assertVictims(r, "pix-node", PreemptOutcome.TRIMMED, "s", "r");
    priorities("pix-node", Map.of("p", 1, "q", 2, "r", 10, "s", 20));
    r = preempt(pod(2, 2, null), "pix-node", meta(0, "s", "r", "q", "p"));
    assertVictims(r, "pix-node", PreemptOutcome.TRIMMED, "q", "p");
  }

  @Test
  @DisplayName(
      "a victim the pod cache does not know is ranked as the most important; ties go to kube-scheduler's order")
  void unknownVictimsRankHighest() {
    known.remove("p");
    priorities("pix-node", Map.of("q", 0, "r", 0, "s", 0));
    assertVictims(
        preempt(pod(2, 2, null), "pix-node", meta(0, "p", "q", "r", "s")),
        "pix-node",
        PreemptOutcome.TRIMMED,
        "q",
        "r");
  }

  @Test
  @DisplayName("hardware that could never meet the policy: dropped as unresolvable, no victim")
  void unresolvableNodesGetNoVictims() {
    assertVictims(
        preempt(pod(3, 3, null), "mixed", meta(0, "a", "b", "c", "d")),
        "mixed",
        PreemptOutcome.UNRESOLVABLE);
    assertVictims(
        preempt(pod(1, 1, null), "gpu-only", meta(0, "x")),
        "gpu-only",
        PreemptOutcome.UNRESOLVABLE);
  }

  @Test
  @DisplayName(
      "the pod already fits the free devices: the proposal stands (the evictions are for others)")
  void freeDevicesKeepTheProposal() {
    assertVictims(
        preempt(pod(2, 0, null), "gpu-only", meta(0, "x")),
        "gpu-only",
        PreemptOutcome.DEVICES_FREE,
        "x");
  }

  @Test
  @DisplayName(
      "a node without a NodeTopology: dropped for required GPU+HCA, kept for any other pod")
  void nodesWithoutTopology() {
    assertVictims(
        preempt(pod(1, 1, null), "plain-node", meta(0, "x")),
        "plain-node",
        PreemptOutcome.NO_TOPOLOGY);
    assertVictims(
        preempt(pod(1, 1, "preferred"), "plain-node", meta(0, "x")),
        "plain-node",
        PreemptOutcome.WITHOUT_TOPOLOGY,
        "x");
    assertVictims(
        preempt(pod(2, 0, null), "plain-node", meta(0, "x")),
        "plain-node",
        PreemptOutcome.WITHOUT_TOPOLOGY,
        "x");
  }

  @Test
  @DisplayName("a pod requesting neither resource: every node kept as proposed")
  void notInterested() {
    assertVictims(
        preempt(pod(0, 0, null), "mixed", meta(0, "a", "b")),
        "mixed",
        PreemptOutcome.NOT_INTERESTED,
        "a",
        "b");
  }

  @Test
  @DisplayName("several nodes: each judged on its own, dropped ones left out of the answer")
  void severalNodes() {
    Map<String, ProposedVictims> m = new LinkedHashMap<>();
    m.put("mixed", meta(0, "b", "a"));
    m.put("pix-node", meta(0, "s", "r"));
    PreemptionResult r = verb.preempt(pod(2, 2, null), m);
    assertEquals(Set.of("pix-node"), r.candidates().keySet());
    assertEquals(List.of("mixed", "pix-node"), List.copyOf(r.outcomes().keySet()));
  }

  @Test
  @DisplayName(
      "a node the extender never saw, or a victim it knows elsewhere: InvalidPreemption naming them")
  void invalidArguments() {
    InvalidPreemption e =
        assertThrows(
            InvalidPreemption.class, () -> preempt(pod(2, 2, null), "nowhere", meta(0, "a")));
    assertTrue(e.getMessage().contains("node nowhere"), e.getMessage());
    e =
        assertThrows(
            InvalidPreemption.class, () -> preempt(pod(2, 2, null), "pix-node", meta(0, "a")));
    assertTrue(
        e.getMessage().contains("ml/a") && e.getMessage().contains("on node mixed"),
        e.getMessage());
    ProposedVictims full =
        new ProposedVictims(List.of(new ProposedVictim("z", "ml/z", "mixed", 0)), 0);
    e = assertThrows(InvalidPreemption.class, () -> preempt(pod(2, 2, null), "pix-node", full));
    assertTrue(e.getMessage().contains("pod ml/z"), e.getMessage());
  }

  @Test
  @DisplayName(
      "many victims: past the exact bound a greedy search still answers a set none can be spared from")
  void boundedSearch() {
    Machine big =
        TestMachines.machine(
            "big",
            new Switch(0, 4, 4),
            new Switch(0, 4, 4),
            new Switch(1, 4, 4),
            new Switch(1, 4, 4));
    List<ReportedAllocation> held = new ArrayList<>();
    List<VictimSearch.Candidate> victims = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      held.add(held("v" + i, "GPU-big-" + i, "mlx5_" + i));
      victims.add(new VictimSearch.Candidate("v" + i, 100 - i));
    }
    state.putTopology(big, 1, held);
    VictimSearch search = new VictimSearch(state.node("big"), pod(4, 4, null).request());
    List<VictimSearch.Candidate> best = search.best(victims);
    assertEquals(4, best.size(), best.toString());
    assertEquals(
        List.of("v12", "v13", "v14", "v15"),
        best.stream().map(VictimSearch.Candidate::uid).toList());
    assertTrue(search.runs() <= 1 + 16 + 120 + 2 * 16 + 1, "allocator runs: " + search.runs());
  }
}
