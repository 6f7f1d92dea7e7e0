package dev.tandem.extender.ui;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.fixtures.HeadlessChromium;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@DisplayName("/ui in headless Chromium against the demo cluster")
@ExtendWith(VertxExtension.class)
class TopologyPageIT {

  private static final Path SCREENSHOT = Path.of("target", "ui", "topology-page-1280x800.png");
  private static final String NODE = "dell-poweredge-xe8640-h100x4";
  private static final String PAGE = "/ui/#node=" + NODE;

  private static ClusterParts cluster;
  private static Http http;
  private static Http verbs;
  private static String base;

  /** Device id to "state pod" after the binds, as the JSON API reports it. */
  private static Map<String, String> expected;

  @BeforeAll
  static void startDemoAndBind(Vertx vertx) throws Exception {
    HeadlessChromium.requireInstalled();
    cluster = DemoCluster.fromBundledFixtures();
    ExtenderConfig d = ExtenderConfig.defaults();
    ExtenderConfig config =
        new ExtenderConfig(
            "127.0.0.1",
            0,
            d.prefix(),
            null,
            null,
            null,
            false,
            0,
            null,
            null,
            d.defaultPolicy(),
            d.resources(),
            d.assumedTtl(),
            d.bodyLimit(),
            true,
            null,
            false,
            d.leaseNamespace(),
            d.leaseName(),
            "topology-page-it",
            d.cacheSize(),
            d.nodeClassDefaults(),
            0);
    Listeners server =
        Extender.start(vertx, config, cluster)
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    http = new Http(server.inspectionPort());
    verbs = new Http(server.verbsPort());
    base = "http://127.0.0.1:" + server.inspectionPort();

    // A 2+2 pod is bound and admitted (allocated), then a 1+1 pod is bound (assumed until
    // admitted).
    bind("ml", "nccl-allreduce-0", "ui-it-1", 2, 2);
    awaitState("nccl-allreduce-0", "allocated");
    bind("research", "bert-finetune-1", "ui-it-2", 1, 1);
    expected = deviceStates();
  }

  @Test
  @DisplayName(
      "lists every node and draws the selected node's GPUs and HCAs with their state and pod")
  void rendersNodesTreeAndStates() throws Exception {
    String dom = new HeadlessChromium().dumpDom(base + PAGE);

    for (NodeEntry node : cluster.state().nodes()) {
      assertTrue(
          dom.contains("data-node=\"" + node.name() + "\""), "node list names " + node.name());
    }
    assertTrue(
        dom.contains("<h2 id=\"node-title\">" + NODE + "</h2>"), "the selected node is " + NODE);
    assertTrue(dom.contains("data-kind=\"ok\""), "the status line says the last refresh worked");
    assertTrue(dom.contains("PCIe switch"), "switches are drawn");
    assertTrue(
        expected.values().stream().anyMatch(s -> s.startsWith("free")), "some devices stay free");
    for (Map.Entry<String, String> e : expected.entrySet()) {
      String id = e.getKey();
      String stateAndPod = e.getValue();
      String chip = "data-device-id=\"" + id + "\" data-state=\"";
      int at = dom.indexOf(chip);
      assertTrue(at >= 0, "device " + id + " is drawn");
      String drawn = dom.substring(at + chip.length(), dom.indexOf('"', at + chip.length()));
      String wanted = stateAndPod.split(" ")[0];
      if (wanted.equals("assumed")) {
        // The demo admits a bound pod after a few seconds: assumed, or already allocated.
        assertTrue(List.of("assumed", "allocated").contains(drawn), id + " is drawn as " + drawn);
      } else {
        assertEquals(wanted, drawn, "state of " + id);
      }
    }
    assertTrue(dom.contains("nccl-allreduce-0"), "allocated devices are labelled with their pod");
    assertTrue(
        dom.contains("bert-finetune-1"), "devices bound to the second pod are labelled with it");
    assertTrue(dom.contains("Pods on this node"), "the pods table is there");
  }

  @Test
  @DisplayName("saves a 1280x800 screenshot of the page")
  void savesScreenshot() throws Exception {
    new HeadlessChromium().screenshot(base + PAGE, SCREENSHOT);

    assertTrue(Files.isRegularFile(SCREENSHOT), "screenshot written to " + SCREENSHOT);
    assertTrue(
        Files.size(SCREENSHOT) > 30_000,
        "screenshot has content: " + Files.size(SCREENSHOT) + " bytes");
    assertEquals("1280x800", pngSize(SCREENSHOT));
  }

  @Test
  @DisplayName("the page, its script and stylesheet are served by the extender; /ui leads to /ui/")
  void servesAssets() {
    HttpResponse<String> bare = http.get("/ui");
    assertEquals(302, bare.statusCode(), "/ui redirects");
    assertEquals("/ui/", bare.headers().firstValue("location").orElse(""), "/ui redirects to /ui/");
    assertEquals(200, http.get("/ui/").statusCode(), "/ui/ serves the page");
    for (String file : List.of("index.html", "app.js", "style.css")) {
      HttpResponse<String> r = http.get("/ui/" + file);
      assertEquals(200, r.statusCode(), "/ui/" + file);
      assertFalse(r.body().isBlank(), "/ui/" + file + " has content");
    }
  }

  private static void bind(String namespace, String name, String uid, int gpus, int hcas) {
    String pod =
        "{\"metadata\":{\"name\":\""
            + name
            + "\",\"namespace\":\""
            + namespace
            + "\",\"uid\":\""
            + uid
            + "\"},\"spec\":{\"containers\":[{\"name\":\"main\",\"resources\":{\"limits\":"
            + "{\"nvidia.com/gpu\":\""
            + gpus
            + "\",\"rdma/hca\":\""
            + hcas
            + "\"}}}]}}";
    HttpResponse<String> filter =
        verbs.post(
            "/scheduler/filter",
            "{\"Pod\":" + pod + ",\"Nodes\":null,\"NodeNames\":[\"" + NODE + "\"]}");
    assertEquals(200, filter.statusCode(), filter.body());
    assertTrue(
        filter.body().contains("\"NodeNames\":[\"" + NODE + "\"]"),
        "filter passes: " + filter.body());
    HttpResponse<String> bind =
        verbs.post(
            "/scheduler/bind",
            "{\"PodName\":\""
                + name
                + "\",\"PodNamespace\":\""
                + namespace
                + "\",\"PodUID\":\""
                + uid
                + "\",\"Node\":\""
                + NODE
                + "\"}");
    assertEquals(200, bind.statusCode(), bind.body());
    assertEquals(
        "", new JsonObject(bind.body()).getString("Error"), "bind succeeds: " + bind.body());
  }

  private static void awaitState(String pod, String wanted) {
    await()
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .alias("the demo reports " + pod + " as " + wanted)
        .until(() -> deviceStates().values().stream().anyMatch(s -> s.equals(wanted + " " + pod)));
  }

  private static Map<String, String> deviceStates() {
    HttpResponse<String> r = http.get("/topology/nodes/" + NODE);
    assertEquals(200, r.statusCode(), r.body());
    return new JsonObject(r.body())
        .getJsonArray("devices").stream()
            .map(JsonObject.class::cast)
            .collect(
                Collectors.toMap(
                    d -> d.getString("id"),
                    d ->
                        d.getString("state")
                            + (d.getJsonObject("pod") == null
                                ? ""
                                : " " + d.getJsonObject("pod").getString("name"))));
  }

  private static String pngSize(Path png) throws IOException {
    try (InputStream in = Files.newInputStream(png);
        DataInputStream data = new DataInputStream(in)) {
      byte[] header = data.readNBytes(16);
      assertEquals((byte) 0x89, header[0], "PNG signature");
      assertEquals("IHDR", new String(header, 12, 4, StandardCharsets.US_ASCII));
      return data.readInt() + "x" + data.readInt();
    }
  }
}
