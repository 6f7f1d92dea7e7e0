package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("prioritize: the node the pod fills most, among those that meet its alignment")
class PrioritizeVerbTest {

  private static final Switch PAIRS = new Switch(0, 2, 2);

  private final ClusterState state =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null).state();
  private final PrioritizeVerb verb = new PrioritizeVerb(new NodeEvaluator(10_000));

  /** Nodes, in the order they are scored. */
  private final List<String> nodes =
      List.of("eight-pairs", "two-pairs", "eight-pairs-one-left", "split", "same-socket");

  PrioritizeVerbTest() {
    state.putTopology(
        TestMachines.machine("eight-pairs", PAIRS, PAIRS, PAIRS, PAIRS), 1, List.of());
    state.putTopology(TestMachines.machine("two-pairs", PAIRS), 1, List.of());
    // 8 GPUs and 8 HCAs under four switches, all but the last GPU and HCA taken by a running pod
    List<String> gpus = new ArrayList<>();
    List<String> hcas = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      gpus.add("GPU-eight-pairs-one-left-" + i);
      hcas.add("mlx5_" + i);
    }
    state.putTopology(
        TestMachines.machine("eight-pairs-one-left", PAIRS, PAIRS, PAIRS, PAIRS),
        1,
        List.of(
            new ReportedAllocation("ml", "big", "uid-big", "main", ResourceNames.GPU, gpus),
            new ReportedAllocation("ml", "big", "uid-big", "main", ResourceNames.HCA, hcas)));
    // GPUs on one socket, HCAs on the other: SYS apart
    state.putTopology(
        TestMachines.machine("split", new Switch(0, 2, 0), new Switch(1, 0, 2)), 1, List.of());
    // GPUs and HCAs on different switches of one socket: PHB apart
    state.putTopology(
        TestMachines.machine("same-socket", new Switch(0, 2, 0), new Switch(0, 0, 2)),
        1,
        List.of());
  }

  private int[] scores(int gpus, int hcas, String mode) {
    JsonObject limits =
        new JsonObject().put("nvidia.com/gpu", "" + gpus).put("rdma/hca", "" + hcas);
    JsonObject meta =
        new JsonObject()
            .put("name", "p")
            .put("namespace", "ml")
            .put("uid", "u-" + gpus + hcas + mode)
            .put("annotations", new JsonObject().put("tandem.dev/alignment-mode", mode));
    JsonObject container =
        new JsonObject()
            .put("name", "main")
            .put("resources", new JsonObject().put("limits", limits));
    PodRequest pod =
        PodRequests.DEFAULT.of(
            new JsonObject()
                .put("metadata", meta)
                .put("spec", new JsonObject().put("containers", new JsonArray().add(container))));
    return verb.scores(
        pod, CandidateNodes.of(state.directory(), nodes), AllocationBudget.UNLIMITED);
  }

  @Test
  @DisplayName(
      "1+1: the node's last pair 10, a small node 8, an empty 8-pair node 6, no switch pair 0")
  void fullestNodeFirst() {
    // devices left free: 0; 2; 14; split and same-socket cannot align the pod (required)
    assertArrayEquals(new int[] {6, 8, 10, 0, 0}, scores(1, 1, "required"));
  }

  @Test
  @DisplayName("2+2: the small node it fills exactly before the 8-pair node it would break")
  void smallestNodeThatAligns() {
    // devices left free: 12 on eight-pairs, 0 on two-pairs; eight-pairs-one-left has 1 GPU free
    assertArrayEquals(new int[] {6, 10, 0, 0, 0}, scores(2, 2, "required"));
  }

  @Test
  @DisplayName("preferred: every node that aligns above every node that does not, then by locality")
  void preferredBelowAlignment() {
    // split: SYS, 0; same-socket: PHB, 2 (both fit, neither meets switch alignment)
    assertArrayEquals(new int[] {6, 8, 10, 0, 2}, scores(1, 1, "preferred"));
  }
}
