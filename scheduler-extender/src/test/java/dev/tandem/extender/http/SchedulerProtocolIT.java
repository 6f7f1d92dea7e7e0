package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.verbs.Outcome;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@DisplayName("kube-scheduler's golden requests, every verb, both cache modes")
@ExtendWith(VertxExtension.class)
class SchedulerProtocolIT {

  private static Http http;
  private static ClusterParts cluster;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    cluster = DemoCluster.of(TestMachines.golden());
    Listeners server =
        Extender.start(
                vertx, ExtenderConfig.defaults().onFreePorts().withBodyLimit(64 * 1024), cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    http = new Http(server.verbsPort());
  }

  private static JsonObject filter(String golden) {
    HttpResponse<String> r = http.post("/scheduler/filter", Http.golden(golden));
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("application/json"));
    return new JsonObject(r.body());
  }

  @Test
  @DisplayName(
      "filter by names: only the aligned node passes; nodes no preemption can fix are unresolvable")
  void filterNames() {
    JsonObject r = filter("filter-names.json");
    assertEquals(new JsonArray().add("pix-node"), r.getJsonArray("NodeNames"));
    assertTrue(
        r.containsKey("Nodes") && r.getValue("Nodes") == null, "Nodes must be null in names mode");
    assertTrue(r.getJsonObject("FailedNodes").isEmpty(), "no node here can be fixed by preemption");
    JsonObject unresolvable = r.getJsonObject("FailedAndUnresolvableNodes");
    assertTrue(
        unresolvable
            .getString("split-node")
            .startsWith(
                "2 GPUs + 2 HCAs need under one PCIe switch (PXB or better, tandem.dev/alignment=switch); "
                    + "best on this node now is SYS"),
        unresolvable.getString("split-node"));
    assertEquals("node has no RDMA HCAs", unresolvable.getString("gpu-only"));
    assertEquals(Outcome.NO_TOPOLOGY_REASON, unresolvable.getString("unknown-node"));
    assertEquals("", r.getString("Error"));
  }

  @Test
  @DisplayName(
      "filter by Node objects: answers a NodeList of the passing input objects, NodeNames null")
  void filterNodes() {
    JsonObject request = new JsonObject(Http.golden("filter-nodes.json"));
    JsonObject r = filter("filter-nodes.json");
    assertNull(r.getValue("NodeNames"));
    JsonArray items = r.getJsonObject("Nodes").getJsonArray("items");
    assertEquals(1, items.size());
    assertEquals(
        request.getJsonObject("Nodes").getJsonArray("items").getJsonObject(0),
        items.getJsonObject(0));
    assertEquals(
        3,
        r.getJsonObject("FailedNodes").size()
            + r.getJsonObject("FailedAndUnresolvableNodes").size());
  }

  @Test
  @DisplayName(
      "prioritize, both modes: a bare array of integer scores 0..10, the aligned node on top")
  void prioritize() {
    for (String golden : List.of("prioritize-names.json", "prioritize-nodes.json")) {
      HttpResponse<String> r = http.post("/scheduler/prioritize", Http.golden(golden));
      assertEquals(200, r.statusCode());
      JsonArray scores = new JsonArray(r.body());
      assertEquals(4, scores.size());
      for (int i = 0; i < scores.size(); i++) {
        JsonObject s = scores.getJsonObject(i);
        assertEquals(List.of("Host", "Score"), List.copyOf(s.fieldNames()));
        assertInstanceOf(Integer.class, s.getValue("Score"), "Score must be a JSON integer");
        int score = s.getInteger("Score");
        assertTrue(score >= 0 && score <= 10);
        assertEquals(s.getString("Host").equals("pix-node"), score > 0, s.encode());
      }
      // aligned (5..10); the 2+2 pod leaves 4 of pix-node's 8 devices free: 7 (topology.md)
      assertTrue(r.body().contains("{\"Host\":\"pix-node\",\"Score\":7}"), r.body());
    }
  }

  @Test
  @DisplayName(
      "preferred pods are never filtered for alignment or a missing topology, only for missing devices")
  void preferred() {
    JsonObject r = filter("filter-preferred-names.json");
    assertEquals(
        new JsonArray().add("pix-node").add("split-node").add("unknown-node"),
        r.getJsonArray("NodeNames"));
    assertEquals(0, r.getJsonObject("FailedNodes").size());
    assertEquals(
        "node has no RDMA HCAs",
        r.getJsonObject("FailedAndUnresolvableNodes").getString("gpu-only"));
  }

  @Test
  @DisplayName(
      "a GPU-only pod passes the node without a NodeTopology and scores 10 there, in both cache modes")
  void gpuOnly() {
    for (String golden : List.of("filter-names.json", "filter-nodes.json")) {
      JsonObject request = new JsonObject(Http.golden(golden));
      for (String part : List.of("limits", "requests")) {
        request
            .getJsonObject("Pod")
            .getJsonObject("spec")
            .getJsonArray("containers")
            .getJsonObject(0)
            .getJsonObject("resources")
            .getJsonObject(part)
            .remove("rdma/hca");
      }
      HttpResponse<String> f = http.post("/scheduler/filter", request.encode());
      JsonObject r = new JsonObject(f.body());
      assertEquals(4, passing(r), golden + ": every node has 2 free GPUs or no topology");
      assertTrue(r.getJsonObject("FailedAndUnresolvableNodes").isEmpty(), f.body());
      JsonArray scores = new JsonArray(http.post("/scheduler/prioritize", request.encode()).body());
      assertEquals(
          new JsonObject().put("Host", "unknown-node").put("Score", 10), scores.getJsonObject(3));
    }
  }

  private static int passing(JsonObject filterResult) {
    return filterResult.getValue("NodeNames") != null
        ? filterResult.getJsonArray("NodeNames").size()
        : filterResult.getJsonObject("Nodes").getJsonArray("items").size();
  }

  @Test
  @DisplayName(
      "an unknown policy value puts every node in FailedAndUnresolvableNodes with the message")
  void badPolicy() {
    JsonObject r = filter("filter-bad-policy-names.json");
    assertEquals(0, r.getJsonArray("NodeNames").size());
    JsonObject u = r.getJsonObject("FailedAndUnresolvableNodes");
    assertEquals(4, u.size());
    assertTrue(
        u.getString("pix-node").contains("tandem.dev/alignment: unknown value 'rack'"),
        u.getString("pix-node"));
    assertEquals("", r.getString("Error"));
  }

  @Test
  @DisplayName("a pod requesting neither resource passes untouched")
  void plain() {
    JsonObject r = filter("filter-plain-names.json");
    assertEquals(4, r.getJsonArray("NodeNames").size());
    assertTrue(r.getJsonObject("FailedNodes").isEmpty());
    assertTrue(r.getJsonObject("FailedAndUnresolvableNodes").isEmpty());
  }

  @Test
  @DisplayName(
      "a pod whose devices come only from a DRA claim (spec.resourceClaims, no GPU or HCA resource)"
          + " passes every node untouched and scores the same everywhere: kube-scheduler's DRA"
          + " allocator places it")
  void claimsOnly() {
    JsonObject r = filter("filter-claims-names.json");
    assertEquals(
        new JsonArray().add("pix-node").add("split-node").add("gpu-only").add("unknown-node"),
        r.getJsonArray("NodeNames"));
    assertTrue(r.getJsonObject("FailedNodes").isEmpty());
    assertTrue(r.getJsonObject("FailedAndUnresolvableNodes").isEmpty());
    HttpResponse<String> scores =
        http.post("/scheduler/prioritize", Http.golden("filter-claims-names.json"));
    assertEquals(200, scores.statusCode());
    JsonArray all = new JsonArray(scores.body());
    assertEquals(4, all.size());
    for (int i = 0; i < all.size(); i++) {
      assertEquals(0, all.getJsonObject(i).getInteger("Score"), scores.body());
    }
  }

  @Test
  @DisplayName(
      "sidecar and init containers count as kube-scheduler counts them (2 GPUs + 2 HCAs from limits)")
  void sidecar() {
    JsonObject r = filter("filter-sidecar-names.json");
    assertEquals(new JsonArray().add("pix-node"), r.getJsonArray("NodeNames"));
    assertTrue(
        r.getJsonObject("FailedAndUnresolvableNodes")
            .getString("split-node")
            .startsWith("2 GPUs + 2 HCAs"));
  }

  @Test
  @DisplayName("garbage gets 400 with a JSON error, and the server keeps serving")
  void garbage() {
    for (String body :
        List.of(
            "not json",
            "[]",
            "{\"Pod\":5}",
            "{\"Pod\":{},\"NodeNames\":[1]}",
            "{\"Pod\":{\"spec\":{\"containers\":7}},\"NodeNames\":[]}",
            "")) {
      HttpResponse<String> r = http.post("/scheduler/filter", body);
      assertEquals(400, r.statusCode(), body);
      assertTrue(new JsonObject(r.body()).getString("error").length() > 5, r.body());
    }
    HttpResponse<String> big =
        http.post(
            "/scheduler/prioritize",
            "{\"Pod\":{},\"NodeNames\":[\"" + "x".repeat(100_000) + "\"]}");
    assertEquals(400, big.statusCode());
    assertTrue(new JsonObject(big.body()).getString("error").contains("body limit"), big.body());
    assertEquals(400, http.post("/scheduler/bind", "{\"PodName\":\"p\"}").statusCode());
    HttpResponse<String> utf16 =
        http.post(
            "/scheduler/prioritize",
            Http.golden("filter-names.json").getBytes(StandardCharsets.UTF_16LE));
    assertEquals(400, utf16.statusCode(), utf16.body());
    assertTrue(new JsonObject(utf16.body()).getString("error").contains("UTF-8"), utf16.body());
    assertEquals(
        200, http.post("/scheduler/filter", Http.golden("filter-plain-names.json")).statusCode());
  }
}
