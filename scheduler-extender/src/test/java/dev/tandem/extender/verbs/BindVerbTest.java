package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.plan.Plan;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.request.ContainerShare;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "bind: leader only, one Binding carrying the plan annotation, errors answered not thrown")
class BindVerbTest {

  private final List<String> calls = new ArrayList<>();
  private final List<String> rehearsed = new ArrayList<>();

  private ClusterParts cluster(JsonObject pod) {
    PodWriter writer =
        new PodWriter() {
          @Override
          public Future<Void> bind(PodRef ref, String node, Map<String, String> annotations) {
            StringBuilder call = new StringBuilder("bind " + node);
            annotations.forEach((k, v) -> call.append(' ').append(k).append(' ').append(v));
            calls.add(call.toString());
            return Future.succeededFuture();
          }

          @Override
          public void rehearse(PodRef ref, String node, Map<String, String> annotations) {
            rehearsed.add(annotations.get(Annotations.PLAN));
          }
        };
    ClusterParts s =
        ClusterParts.empty(
            Clock.systemUTC(),
            ref ->
                pod == null
                    ? Future.failedFuture("pod " + ref + " does not exist")
                    : Future.succeededFuture(pod),
            writer);
    s.state().putTopology(TestMachines.pixNode(), 1, List.of());
    s.readiness().leader(true);
    return s;
  }

  private static JsonObject pod(String gpus, String hcas, String alignment) {
    return TestPods.pod(
        gpus,
        hcas,
        alignment == null ? Map.of() : Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, alignment));
  }

  private BindResult bind(ClusterParts s, String node) throws Exception {
    return new BindVerb(
            s.readiness(),
            s.pods(),
            s.assumptions(),
            s.writer(),
            PodRequests.DEFAULT,
            Duration.ofMinutes(5))
        .bind(new PodRef("ml", "p", "u"), node)
        .toCompletionStage()
        .toCompletableFuture()
        .get();
  }

  @Test
  @DisplayName(
      "one Binding carries the plan annotation, with the exact shape the device plugin reads")
  void oneCall() throws Exception {
    BindResult r = bind(cluster(pod("2", "2", null)), "pix-node");
    assertEquals("bound", r.result());
    assertEquals(1, calls.size());
    assertTrue(
        calls
            .get(0)
            .matches(
                "bind pix-node tandem\\.dev/plan \\{\"node\":\"pix-node\",\"gpus\":\\[\"[^\"]+\","
                    + "\"[^\"]+\"\\],\"hcas\":\\[\"mlx5_\\d\",\"mlx5_\\d\"\\],\"locality\":\"PIX\",\"policy\":\"switch/required\","
                    + "\"plannedAt\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\","
                    + "\"containers\":\\[\\{\"name\":\"main\",\"gpus\":\\[[^]]+\\],\"hcas\":\\[[^]]+\\]\\}\\]\\}"),
        calls.get(0));
  }

  @Test
  @DisplayName(
      "several containers and an init container: the plan splits the pod's devices as the kubelet"
          + " will, the init container's HCA reused by the first app container")
  void perContainerShares() throws Exception {
    JsonObject pod =
        TestPods.pod(
            List.of(TestPods.container("a", 1, 1), TestPods.container("b", 1, 1)),
            List.of(TestPods.container("setup", 0, 1)));
    bind(cluster(pod), "pix-node");
    Plan plan = PlanCodec.decode(calls.get(0).substring(calls.get(0).indexOf('{')));
    assertEquals(2, plan.gpus().size());
    assertEquals(2, plan.hcas().size(), "the effective request: max(1 init, 1 + 1 app)");
    ContainerShare setup = plan.container("setup").orElseThrow();
    ContainerShare a = plan.container("a").orElseThrow();
    ContainerShare b = plan.container("b").orElseThrow();
    assertTrue(setup.init());
    assertEquals(setup.hcas(), a.hcas(), "a reuses what setup held");
    assertEquals(Set.copyOf(plan.hcas()), Set.of(a.hcas().get(0), b.hcas().get(0)));
    assertEquals(Set.copyOf(plan.gpus()), Set.of(a.gpus().get(0), b.gpus().get(0)));
  }

  @Test
  @DisplayName(
      "a rehearsed bind plans what bind would, prepares the Binding, and holds and sends nothing,"
          + " on a standby too")
  void rehearsal() throws Exception {
    JsonObject pod = pod("2", "2", null);
    ClusterParts s = cluster(pod);
    s.readiness().leader(false);
    BindVerb verb =
        new BindVerb(
            s.readiness(),
            s.pods(),
            s.assumptions(),
            s.writer(),
            PodRequests.DEFAULT,
            Duration.ofMinutes(5));
    assertTrue(verb.rehearse(pod, "pix-node"));
    assertTrue(verb.rehearse(pod, "pix-node"), "the first rehearsal held nothing");
    assertEquals(0, s.assumptions().count());
    assertTrue(calls.isEmpty(), "nothing sent: " + calls);
    assertEquals(2, rehearsed.size());
    s.readiness().leader(true);
    assertEquals("bound", bind(s, "pix-node").result());
    Plan planned = PlanCodec.decode(rehearsed.get(0));
    Plan bound = PlanCodec.decode(calls.get(0).substring(calls.get(0).indexOf('{')));
    assertEquals(bound.gpus(), planned.gpus());
    assertEquals(bound.hcas(), planned.hcas());
    assertEquals(bound.locality(), planned.locality());
    assertEquals(bound.containers(), planned.containers());
    assertFalse(verb.rehearse(pod("8", "1", null), "pix-node"), "infeasible: nothing planned");
    assertFalse(verb.rehearse(pod, "elsewhere"), "unknown node");
    assertFalse(verb.rehearse(pod("1", "1", "rack"), "pix-node"), "invalid policy");
    assertEquals(2, rehearsed.size());
  }

  @Test
  @DisplayName("a replica that does not lead answers Error and writes nothing")
  void notLeader() throws Exception {
    ClusterParts s = cluster(pod("1", "1", null));
    s.readiness().leader(false);
    BindResult r = bind(s, "pix-node");
    assertEquals("not_leader", r.result());
    assertTrue(r.error().contains("not the leader"));
    assertTrue(calls.isEmpty());
  }

  @Test
  @DisplayName("unknown pod, bad policy, unknown node, no room: Error, nothing held")
  void failures() throws Exception {
    assertEquals("unknown_pod", bind(cluster(null), "pix-node").result());
    assertEquals("invalid_policy", bind(cluster(pod("1", "1", "rack")), "pix-node").result());
    assertEquals("unknown_node", bind(cluster(pod("1", "1", null)), "elsewhere").result());
    ClusterParts s = cluster(pod("8", "1", null));
    BindResult full = bind(s, "pix-node");
    assertEquals("infeasible", full.result());
    assertTrue(full.error().contains("node has 4 free healthy GPUs, pod needs 8"), full.error());
    assertEquals(0, s.assumptions().count());
    assertTrue(calls.isEmpty());
  }

  @Test
  @DisplayName("a pod without GPUs or HCAs is bound without a plan")
  void plainPod() throws Exception {
    assertEquals("bound_without_plan", bind(cluster(pod(null, null, null)), "pix-node").result());
    assertEquals(List.of("bind pix-node"), calls);
  }

  @ParameterizedTest(name = "{0} GPUs + {1} HCAs, mode {2}")
  @CsvSource(
      nullValues = "-",
      value = {"1,-,-", "-,2,-", "2,1,preferred"})
  @DisplayName(
      "one kind, or preferred: a node without a NodeTopology is bound as it is, with no plan held")
  void withoutTopology(String gpus, String hcas, String mode) throws Exception {
    ClusterParts s =
        cluster(
            TestPods.pod(
                gpus,
                hcas,
                mode == null ? Map.of() : Map.of(AlignmentPolicy.MODE_ANNOTATION, mode)));
    BindResult r = bind(s, "plain-node");
    assertEquals("bound_without_topology", r.result());
    assertEquals("", r.error());
    assertEquals(List.of("bind plain-node"), calls, "a Binding, and no tandem.dev/plan");
    assertEquals(0, s.assumptions().count());
  }

  @Test
  @DisplayName(
      "GPUs + HCAs with required alignment on a node without a NodeTopology: Error naming node, pod and the fix")
  void requiredWithoutTopology() throws Exception {
    BindResult r = bind(cluster(pod("1", "1", null)), "plain-node");
    assertEquals("unknown_node", r.result());
    assertEquals(
        "node plain-node has no NodeTopology, so the required GPU+HCA alignment of ml/p (uid u) cannot"
            + " be planned there (is the tandem agent running on it?)",
        r.error());
    assertTrue(calls.isEmpty());
  }

  @Test
  @DisplayName(
      "a one-kind pod on a node with a topology holds the devices it gets: a plan of those only")
  void oneKindPlanned() throws Exception {
    ClusterParts s = cluster(pod("1", null, null));
    assertEquals("bound", bind(s, "pix-node").result());
    assertTrue(
        calls
            .get(0)
            .matches(
                "bind pix-node tandem\\.dev/plan \\{\"node\":\"pix-node\",\"gpus\":\\[\"[^\"]+\"\\],\"hcas\":\\[\\],.*"),
        calls.get(0));
    assertEquals(1, s.assumptions().count());
  }
}
