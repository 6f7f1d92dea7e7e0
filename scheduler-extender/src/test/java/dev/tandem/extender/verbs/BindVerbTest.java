package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.state.Cluster;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("bind: leader only, plan annotation before Binding, errors answered not thrown")
class BindVerbTest {

  private final List<String> calls = new ArrayList<>();

  private Cluster cluster(JsonObject pod) {
    PodWriter writer =
        new PodWriter() {
          @Override
          public Future<Void> annotate(PodRef ref, String key, String value) {
            calls.add("annotate " + key + " " + value);
            return Future.succeededFuture();
          }

          @Override
          public Future<Void> bind(PodRef ref, String node) {
            calls.add("bind " + node);
            return Future.succeededFuture();
          }
        };
    Cluster s =
        Cluster.empty(
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
    JsonObject limits = new JsonObject();
    if (gpus != null) {
      limits.put("nvidia.com/gpu", gpus);
    }
    if (hcas != null) {
      limits.put("rdma/hca", hcas);
    }
    JsonObject meta = new JsonObject().put("name", "p").put("namespace", "ml").put("uid", "u");
    if (alignment != null) {
      meta.put("annotations", new JsonObject().put("tandem.dev/alignment", alignment));
    }
    return new JsonObject()
        .put("metadata", meta)
        .put(
            "spec",
            new JsonObject()
                .put(
                    "containers",
                    new JsonArray()
                        .add(
                            new JsonObject()
                                .put("name", "main")
                                .put("resources", new JsonObject().put("limits", limits)))));
  }

  private BindResult bind(Cluster s, String node) throws Exception {
    return new BindVerb(
            s.readiness(),
            s.pods(),
            s.assumptions(),
            s.writer(),
            AlignmentPolicy.DEFAULT,
            Duration.ofMinutes(5))
        .bind(new PodRef("ml", "p", "u"), node)
        .toCompletionStage()
        .toCompletableFuture()
        .get();
  }

  @Test
  @DisplayName(
      "the plan annotation is written before the Binding, with the exact shape the device plugin reads")
  void order() throws Exception {
    BindResult r = bind(cluster(pod("2", "2", null)), "pix-node");
    assertEquals("bound", r.result());
    assertEquals(2, calls.size());
    assertTrue(
        calls
            .get(0)
            .matches(
                "annotate tandem\\.dev/plan \\{\"node\":\"pix-node\",\"gpus\":\\[\"[^\"]+\","
                    + "\"[^\"]+\"\\],\"hcas\":\\[\"mlx5_\\d\",\"mlx5_\\d\"\\],\"locality\":\"PIX\",\"policy\":\"switch/required\","
                    + "\"plannedAt\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\"\\}"),
        calls.get(0));
    assertEquals("bind pix-node", calls.get(1));
  }

  @Test
  @DisplayName("a replica that does not lead answers Error and writes nothing")
  void notLeader() throws Exception {
    Cluster s = cluster(pod("1", "1", null));
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
    Cluster s = cluster(pod("8", "1", null));
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
}
