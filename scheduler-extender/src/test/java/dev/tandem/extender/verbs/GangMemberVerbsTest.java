package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.plan.Plan;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.api.pod.GangKeys;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.GangRailBook;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.RailSets;
import dev.tandem.topology.rail.Rails;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("gang members: filtered (required) or scored (preferred) on their gang's rails")
class GangMemberVerbsTest {

  /** HGX H200, rails by PCI order: GPU-i beside the HCA of rail i. */
  private static final Machine HGX = Rails.byPciOrder(RealMachines.hgxH200()).machine();

  private static final String[] RAIL_HCA = {
    "mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"
  };

  private final List<Map<String, String>> written = new ArrayList<>();
  private final ClusterParts cluster =
      ClusterParts.empty(
          Clock.systemUTC(),
          ref -> Future.failedFuture("no pod " + ref),
          new PodWriter() {
            @Override
            public Future<Void> bind(PodRef ref, String node, Map<String, String> annotations) {
              written.add(annotations);
              return Future.succeededFuture();
            }
          });
  private final ClusterState state = cluster.state();
  private final GangRailBook book = state.gangRails();
  private final NodeEvaluator evaluator = new NodeEvaluator(10_000);
  private final FilterVerb filter = new FilterVerb(evaluator, book);
  private final PrioritizeVerb prioritize = new PrioritizeVerb(evaluator, book);

  GangMemberVerbsTest() {
    node("empty");
    node("low-taken", 0, 1, 2, 3);
    node("high-taken", 4, 5, 6, 7);
    node("high-taken-2", 4, 5, 6, 7);
    cluster.readiness().leader(true);
  }

  /** An HGX H200 whose GPUs and HCAs of these rails another pod holds. */
  private void node(String name, int... takenRails) {
    List<String> gpus = new ArrayList<>();
    List<String> hcas = new ArrayList<>();
    for (int r : takenRails) {
      gpus.add("GPU-" + r);
      hcas.add(RAIL_HCA[r]);
    }
    List<ReportedAllocation> other =
        takenRails.length == 0
            ? List.of()
            : List.of(
                new ReportedAllocation(
                    "ml", "other", "other-" + name, "c", ResourceNames.GPU, gpus),
                new ReportedAllocation(
                    "ml", "other", "other-" + name, "c", ResourceNames.HCA, hcas));
    state.putTopology(new Machine(name, HGX.source(), HGX.pcie(), HGX.devices()), 1, other);
  }

  /** Member {@code uid} of gang {@code ml/job} asking 4 GPUs + 4 HCAs; null alignment: unsaid. */
  private static PodRequest member(String uid, String railAlignment) {
    return member(uid, railAlignment, "job");
  }

  private static PodRequest member(String uid, String railAlignment, String gang) {
    Map<String, String> notes = new HashMap<>();
    notes.put(GangKeys.GANG, gang);
    if (railAlignment != null) {
      notes.put(GangKeys.RAIL_ALIGNMENT, railAlignment);
    }
    return request(uid, notes);
  }

  private static PodRequest request(String uid, Map<String, String> annotations) {
    JsonObject pod = TestPods.pod("4", "4", annotations);
    pod.getJsonObject("metadata").put("uid", uid).put("name", uid);
    return PodRequests.DEFAULT.of(pod);
  }

  private FilterVerdict filter(PodRequest pod, String... nodes) {
    return filter.verdict(
        pod, CandidateNodes.of(state.directory(), List.of(nodes)), AllocationBudget.UNLIMITED);
  }

  private int[] scores(PodRequest pod, String... nodes) {
    return prioritize.scores(
        pod, CandidateNodes.of(state.directory(), List.of(nodes)), AllocationBudget.UNLIMITED);
  }

  private BindResult bind(PodRequest pod, String node) throws Exception {
    BindVerb verb =
        new BindVerb(
            cluster.readiness(),
            ref -> Future.succeededFuture(asJson(pod)),
            cluster.assumptions(),
            cluster.writer(),
            PodRequests.DEFAULT,
            Duration.ofMinutes(5),
            book);
    return verb.bind(pod.pod(), node).toCompletionStage().toCompletableFuture().get();
  }

  /** The pod a request was read from, rebuilt: its gang annotations and its 4 + 4 limits. */
  private static JsonObject asJson(PodRequest pod) {
    Map<String, String> notes = new HashMap<>();
    notes.put(GangKeys.GANG, pod.gang().name());
    if (pod.gang().railAlignment() != null) {
      notes.put(GangKeys.RAIL_ALIGNMENT, pod.gang().railAlignment().value());
    }
    JsonObject json = TestPods.pod("4", "4", notes);
    json.getJsonObject("metadata").put("uid", pod.pod().uid()).put("name", pod.pod().name());
    return json;
  }

  private List<String> railHcas(int... rails) {
    List<String> out = new ArrayList<>();
    for (int r : rails) {
      out.add(RAIL_HCA[r]);
    }
    return out;
  }

  @Test
  @DisplayName("required: refused where the gang's rails are taken, with the gang and rails named")
  void requiredRefused() {
    book.placed("ml/job", new PodRef("ml", "first", "first"), "empty", railHcas(4, 5, 6, 7));
    FilterVerdict v = filter(member("second", "required"), "low-taken", "high-taken", "empty");
    assertTrue(v.passed()[0], "rails 4-7 free");
    assertFalse(v.passed()[1]);
    assertTrue(v.passed()[2]);
    assertEquals(
        "gang ml/job is on rails [4, 5, 6, 7] (tandem.dev/rail-alignment=required) and this node"
            + " cannot place 4 GPUs + 4 HCAs on them: node has 0 free healthy HCAs, pod needs 4",
        v.reasons()[1]);
    assertEquals(1, v.counts()[Outcome.GANG_RAILS.ordinal()]);
  }

  @Test
  @DisplayName("preferred (the default): never refused for rails; the gang's rails score higher")
  void preferredScored() {
    book.placed("ml/job", new PodRef("ml", "first", "first"), "empty", railHcas(4, 5, 6, 7));
    for (String alignment : new String[] {"preferred", null}) {
      PodRequest pod = member("second", alignment);
      FilterVerdict v = filter(pod, "low-taken", "high-taken");
      assertTrue(v.passed()[0] && v.passed()[1], "alignment " + alignment);
      int[] s = scores(pod, "low-taken", "high-taken");
      assertEquals(0, s[1], "off the gang's rails");
      assertTrue(s[0] > 0, "on them: " + s[0]);
    }
  }

  @Test
  @DisplayName("first member: the rails that leave the most members placeable, kept for the gang")
  void firstMemberChooses() {
    FilterVerdict v =
        filter(member("first", "required"), "high-taken", "low-taken", "high-taken-2");
    // rails 0-3 are free on two nodes, 4-7 on one: 0-3
    assertFalse(v.passed()[1], v.reasons()[1]);
    assertTrue(v.passed()[0] && v.passed()[2]);
    assertEquals(Set.of(0, 1, 2, 3), book.choice("ml/job").rails());
    // another member before the first is bound: the same rails
    assertFalse(filter(member("second", "required"), "low-taken").passed()[0]);
  }

  @Test
  @DisplayName("bind: the plan holds the gang's rails; a preferred member off them is flagged")
  void bindOnRails() throws Exception {
    book.placed("ml/job", new PodRef("ml", "first", "first"), "empty", railHcas(4, 5, 6, 7));
    // on an empty node the plain plan takes rails 0-3
    BindResult on = bind(member("second", "required"), "empty");
    assertEquals("", on.error());
    assertEquals("bound", on.result());
    Plan plan = PlanCodec.decode(written.get(0).get(Annotations.PLAN));
    assertEquals("empty", plan.node());
    assertEquals(Set.of(4, 5, 6, 7), RailSets.of(HGX, plan.hcas()));
    assertEquals(Map.of("ml/job", Set.of(4, 5, 6, 7)), book.gangs());

    BindResult refused = bind(member("third", "required"), "high-taken");
    assertEquals("infeasible", refused.result());
    assertTrue(refused.error().contains("gang ml/job is on rails [4, 5, 6, 7]"), refused.error());

    BindResult off = bind(member("fourth", "preferred"), "high-taken-2");
    assertEquals("bound_off_gang_rails", off.result());
  }

  @Test
  @DisplayName(
      "a pod in two gangs, or with a bad rail alignment: refused on every node, saying why")
  void invalidGang() {
    PodRequest two =
        request("w-0", Map.of(GangKeys.GANG, "a", "scheduling.k8s.io/group-name", "b"));
    FilterVerdict v = filter(two, "empty", "low-taken");
    for (int i = 0; i < 2; i++) {
      assertTrue(v.failedIn(i, true));
      assertTrue(v.reasons()[i].startsWith("pod ml/w-0 is in more than one gang"), v.reasons()[i]);
    }
    assertEquals(2, v.counts()[Outcome.INVALID_POLICY.ordinal()]);
    PodRequest bad = request("w-1", Map.of(GangKeys.GANG, "a", GangKeys.RAIL_ALIGNMENT, "always"));
    assertEquals(
        "pod ml/w-1: tandem.dev/rail-alignment='always' is not one of required, preferred",
        filter(bad, "empty").reasons()[0]);
  }

  @Test
  @DisplayName("a gang of one on one node, and a pod in no gang: as today")
  void asToday() {
    PodRequest alone = request("solo", Map.of());
    assertNull(alone.gang());
    FilterVerb plainFilter = new FilterVerb(new NodeEvaluator(10_000));
    PrioritizeVerb plainScores = new PrioritizeVerb(new NodeEvaluator(10_000));
    for (String node : List.of("empty", "low-taken", "high-taken")) {
      CandidateNodes one = CandidateNodes.of(state.directory(), List.of(node));
      FilterVerdict plain = plainFilter.verdict(alone, one, AllocationBudget.UNLIMITED);
      int[] plainScore = plainScores.scores(alone, one, AllocationBudget.UNLIMITED);
      for (PodRequest pod : List.of(alone, member("solo", "required", "solo-" + node))) {
        FilterVerdict v = filter(pod, node);
        assertArrayEquals(plain.passed(), v.passed(), node);
        assertArrayEquals(plain.reasons(), v.reasons(), node);
        assertArrayEquals(plainScore, scores(pod, node), node);
      }
    }
  }
}
