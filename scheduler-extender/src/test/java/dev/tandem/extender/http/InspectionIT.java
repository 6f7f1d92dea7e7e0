package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@DisplayName("inspection API, health, metrics and the demo's binds")
@ExtendWith(VertxExtension.class)
class InspectionIT {

  private static Http http;
  private static Http verbs;
  private static ClusterParts cluster;

  @BeforeAll
  static void start(Vertx vertx) throws Exception {
    cluster = DemoCluster.of(TestMachines.golden());
    Listeners server =
        Extender.start(vertx, ExtenderConfig.defaults().onFreePorts(), cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    http = new Http(server.inspectionPort());
    verbs = new Http(server.verbsPort());
  }

  private static JsonObject node(String name) {
    for (Object o : new JsonObject(http.get("/topology/nodes").body()).getJsonArray("nodes")) {
      if (((JsonObject) o).getString("name").equals(name)) {
        return (JsonObject) o;
      }
    }
    throw new AssertionError("no node " + name);
  }

  @Test
  @DisplayName(
      "GET /topology/nodes: free/total, switches, NUMA nodes, best locality for 1, 2, 4, 8 pairs")
  void nodes() {
    JsonObject pix = node("pix-node");
    assertEquals("test", pix.getString("source"));
    assertEquals(new JsonObject().put("free", 4).put("total", 4), pix.getJsonObject("gpus"));
    assertEquals(new JsonObject().put("free", 4).put("total", 4), pix.getJsonObject("hcas"));
    assertEquals(2, pix.getInteger("switches"));
    assertEquals(new JsonArray().add(0).add(1), pix.getJsonArray("numaNodes"));
    JsonObject best = pix.getJsonObject("bestLocality");
    assertEquals("PIX", best.getString("1"));
    assertEquals("PIX", best.getString("2"));
    assertEquals("PIX", best.getString("4"), "each GPU keeps the HCA of its switch");
    assertTrue(best.containsKey("8") && best.getValue("8") == null);
    assertEquals("SYS", node("split-node").getJsonObject("bestLocality").getString("2"));
    assertNull(node("gpu-only").getJsonObject("bestLocality").getValue("1"));
  }

  @Test
  @DisplayName(
      "GET /topology/nodes/{node}: tree and devices; matrix as text; unknown node 404 with JSON")
  void detail() {
    JsonObject d = new JsonObject(http.get("/topology/nodes/split-node").body());
    assertEquals("split-node", d.getString("name"));
    JsonObject first = d.getJsonArray("pcie").getJsonObject(0);
    assertEquals(
        List.of("id", "kind", "parent", "address", "vendor", "device", "numaNodes"),
        List.copyOf(first.fieldNames()));
    JsonObject gpu = d.getJsonArray("devices").getJsonObject(0);
    assertEquals("GPU", gpu.getString("kind"));
    assertEquals("free", gpu.getString("state"));
    assertEquals(new JsonObject().put("free", 1).put("total", 1), gpu.getJsonObject("units"));
    assertTrue(gpu.getString("switch").startsWith("pci:"));
    assertTrue(gpu.containsKey("pod") && gpu.getValue("pod") == null);
    assertTrue(d.getJsonArray("allocations").isEmpty() && d.getJsonArray("assumed").isEmpty());
    HttpResponse<String> matrix = http.get("/topology/nodes/split-node/matrix");
    assertTrue(matrix.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
    assertTrue(matrix.body().contains("GPU0") && matrix.body().contains("mlx5_0"), matrix.body());
    HttpResponse<String> missing = http.get("/topology/nodes/nope");
    assertEquals(404, missing.statusCode());
    assertTrue(new JsonObject(missing.body()).getString("error").contains("nope"));
    assertEquals(404, http.get("/topology/nodes/nope/matrix").statusCode());
  }

  @Test
  @DisplayName(
      "demo bind: the pod last seen by filter is planned; free devices shrink; plan shows as assumed")
  void demoBind() {
    String filter =
        Http.golden("filter-names.json")
            .replace("6f1c2a4e-0b1d-4f5e-9a7c-3d2e1f0a9b8c", "demo-uid-7");
    assertEquals(200, verbs.post("/scheduler/filter", filter).statusCode());
    HttpResponse<String> bind =
        verbs.post(
            "/scheduler/bind",
            "{\"PodName\":\"trainer-0\",\"PodNamespace\":\"ml\","
                + "\"PodUID\":\"demo-uid-7\",\"Node\":\"pix-node\"}");
    assertEquals("{\"Error\":\"\"}", bind.body());
    assertEquals(2, node("pix-node").getJsonObject("gpus").getInteger("free"));
    JsonObject d = new JsonObject(http.get("/topology/nodes/pix-node").body());
    JsonObject plan = d.getJsonArray("assumed").getJsonObject(0);
    assertEquals("demo-uid-7", plan.getString("uid"));
    assertEquals("PIX", plan.getString("locality"));
    assertTrue(plan.containsKey("expiresAt"));
    long assumed =
        d.getJsonArray("devices").stream()
            .map(o -> (JsonObject) o)
            .filter(
                x ->
                    x.getString("state").equals("assumed")
                        || x.getString("state").equals("allocated"))
            .count();
    assertEquals(4, assumed);
    long unitsTaken =
        d.getJsonArray("devices").stream()
            .map(o -> ((JsonObject) o).getJsonObject("units"))
            .filter(u -> u.getInteger("free") < u.getInteger("total"))
            .count();
    assertEquals(4, unitsTaken, "each planned device shows one unit fewer free");
    verbs.post("/scheduler/filter", Http.golden("filter-plain-names.json"));
    assertEquals(
        "{\"Error\":\"\"}",
        verbs
            .post(
                "/scheduler/bind",
                "{\"PodName\":\"web-0\",\"PodNamespace\":\"ml\","
                    + "\"PodUID\":\"0d9e1c7b-5a43-4e61-8f0b-2a6c9d3e4f51\",\"Node\":\"gpu-only\"}")
            .body(),
        "a pod without GPUs or HCAs binds without a plan");
    HttpResponse<String> unknown =
        verbs.post(
            "/scheduler/bind",
            "{\"PodName\":\"x\",\"PodNamespace\":\"ml\","
                + "\"PodUID\":\"never-seen\",\"Node\":\"pix-node\"}");
    assertEquals(200, unknown.statusCode());
    assertTrue(new JsonObject(unknown.body()).getString("Error").contains("not seen by filter"));
  }

  @Test
  @DisplayName(
      "a degraded replica (informers not watching the API server) stays ready: 200, degraded and why")
  void degradedStaysReady() {
    JsonObject before = new JsonObject(http.get("/readyz").body());
    assertFalse(before.getBoolean("degraded"));
    assertNull(before.getString("reason"));
    cluster.readiness().degraded("informers pods lost their watch on the API server");
    try {
      HttpResponse<String> r = http.get("/readyz");
      assertEquals(200, r.statusCode());
      JsonObject body = new JsonObject(r.body());
      assertTrue(body.getBoolean("ready"));
      assertTrue(body.getBoolean("degraded"));
      assertEquals("informers pods lost their watch on the API server", body.getString("reason"));
    } finally {
      cluster.readiness().degraded(null);
    }
  }

  @Test
  @DisplayName("/healthz, /readyz, /metrics and the /ui page are served")
  void health() {
    assertEquals(200, http.get("/healthz").statusCode());
    JsonObject ready = new JsonObject(http.get("/readyz").body());
    assertTrue(ready.getBoolean("ready"));
    verbs.post("/scheduler/filter", Http.golden("filter-plain-names.json"));
    String metrics = http.get("/metrics").body();
    assertTrue(metrics.contains("tandem_extender_request_seconds_bucket{verb=\"filter\""), metrics);
    assertTrue(metrics.contains("tandem_extender_filter_nodes_total{outcome=\"not_interested\"}"));
    assertTrue(metrics.contains("tandem_extender_assumed_allocations"));
    HttpResponse<String> ui = http.get("/ui/");
    assertEquals(200, ui.statusCode());
    assertTrue(
        ui.body().contains("<html")
            || ui.body().contains("<!doctype")
            || ui.body().contains("<!DOCTYPE"));
  }
}
