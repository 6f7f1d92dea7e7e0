package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.PodRef;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * kube-scheduler's preempt requests (golden, encoded by Go from the real extender/v1 types) against
 * the golden nodes, each full of 1 GPU + 1 HCA victims held as assumed plans: the answer is an
 * ExtenderPreemptionResult naming the fewest victims that free an aligned set; bad input gets 400
 * with the reason, never 500.
 */
@DisplayName("preempt over HTTP: golden requests as kube-scheduler encodes them, and bad input")
@ExtendWith(VertxExtension.class)
class PreemptProtocolIT {

  private static Http http;
  private static Http inspection;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    ClusterParts cluster = DemoCluster.of(TestMachines.golden());
    AllocationRequest pair = new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT);
    AllocationRequest anywhere =
        new AllocationRequest(1, 1, new AlignmentPolicy(Alignment.NONE, AlignmentMode.REQUIRED));
    for (int n = 0; n < 4; n++) {
      hold(cluster, "pix-node", n, pair);
      hold(cluster, "split-node", n, anywhere);
    }
    hold(cluster, "gpu-only", 0, new AllocationRequest(1, 0, AlignmentPolicy.DEFAULT));
    Listeners server =
        Extender.start(
                vertx, ExtenderConfig.defaults().onFreePorts().withBodyLimit(64 * 1024), cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    http = new Http(server.verbsPort());
    inspection = new Http(server.inspectionPort());
  }

  private static void hold(ClusterParts cluster, String node, int n, AllocationRequest request) {
    String uid = "victim-" + node + "-" + n;
    cluster
        .assumptions()
        .assume(node, new PodRef("ml", "victim-" + n, uid), request, Duration.ofMinutes(10))
        .orElseThrow();
  }

  private static JsonObject preempt(String golden) {
    HttpResponse<String> r = http.post("/scheduler/preempt", Http.golden(golden));
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("application/json"));
    return new JsonObject(r.body());
  }

  private static JsonObject victims(String... uids) {
    JsonArray pods = new JsonArray();
    for (String uid : uids) {
      pods.add(new JsonObject().put("UID", uid));
    }
    return new JsonObject().put("Pods", pods);
  }

  @Test
  @DisplayName(
      "MetaVictims: two of three victims free an aligned pair; nodes that never align are dropped")
  void metaVictims() {
    JsonObject r = preempt("preempt-meta.json");
    assertEquals(
        new JsonObject()
            .put(
                "NodeNameToMetaVictims",
                new JsonObject()
                    .put(
                        "pix-node",
                        victims("victim-pix-node-0", "victim-pix-node-1")
                            .put("NumPDBViolations", 1))),
        r);
  }

  @Test
  @DisplayName("full Victims (nodeCacheCapable: false): the two lowest priorities are answered")
  void fullVictims() {
    JsonObject r = preempt("preempt-nodes.json");
    assertEquals(
        victims("victim-pix-node-1", "victim-pix-node-2").put("NumPDBViolations", 0),
        r.getJsonObject("NodeNameToMetaVictims").getJsonObject("pix-node"),
        r.encode());
  }

  @Test
  @DisplayName("a pod without GPUs or HCAs: the proposal comes back unchanged")
  void plainPod() {
    JsonObject r = preempt("preempt-plain.json");
    assertEquals(
        victims("victim-pix-node-3").put("NumPDBViolations", 0),
        r.getJsonObject("NodeNameToMetaVictims").getJsonObject("pix-node"));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "preempt-no-maps.json, carries neither NodeNameToMetaVictims nor NodeNameToVictims",
    "preempt-unknown-node.json, node unknown-node has neither a Node object nor a NodeTopology",
    "preempt-victim-elsewhere.json, is proposed as a victim on node pix-node but is on node split-node",
  })
  @DisplayName("golden bad input: 400 with an error naming what is wrong, never 500")
  void goldenBadInput(String golden, String message) {
    HttpResponse<String> r = http.post("/scheduler/preempt", Http.golden(golden));
    assertEquals(400, r.statusCode(), r.body());
    String error = new JsonObject(r.body()).getString("error");
    assertTrue(error.contains(message), error);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "[] | body is not a JSON object",
        "{\"NodeNameToMetaVictims\":{}} | ExtenderPreemptionArgs.Pod must be a v1.Pod object",
        "{\"Pod\":{},\"NodeNameToMetaVictims\":[]} | must be an object of node names",
        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"pix-node\":null}} | [pix-node] must be an object",
        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"pix-node\":{\"Pods\":[{\"UID\":5}]}}} | .Pods[0] must be a MetaPod",
        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"pix-node\":{\"NumPDBViolations\":1.5}}} | NumPDBViolations must be an integer",
        "{\"Pod\":{},\"NodeNameToVictims\":{\"pix-node\":{\"Pods\":[{\"metadata\":{}}]}}} | must be a v1.Pod with metadata.uid",
        "{\"Pod\":{\"spec\":{\"containers\":7}},\"NodeNameToMetaVictims\":{}} | ExtenderPreemptionArgs.Pod is not a v1.Pod",
      })
  @DisplayName("malformed bodies: 400 with the field at fault")
  void malformed(String body, String message) {
    HttpResponse<String> r = http.post("/scheduler/preempt", body);
    assertEquals(400, r.statusCode(), r.body());
    String error = new JsonObject(r.body()).getString("error");
    assertTrue(error.contains(message), error);
  }

  @Test
  @DisplayName("an empty proposal gets an empty answer; every outcome is counted in /metrics")
  void emptyAndMetrics() {
    HttpResponse<String> r =
        http.post("/scheduler/preempt", "{\"Pod\":{},\"NodeNameToMetaVictims\":{}}");
    assertEquals(200, r.statusCode(), r.body());
    assertEquals("{\"NodeNameToMetaVictims\":{}}", r.body());
    preempt("preempt-meta.json");
    String metrics = inspection.get("/metrics").body();
    assertTrue(
        metrics.contains("tandem_extender_preempt_nodes_total{outcome=\"unresolvable\"}"), metrics);
    assertTrue(metrics.contains("tandem_extender_request_seconds_count{verb=\"preempt\"}"));
  }
}
