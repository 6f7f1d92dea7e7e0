package dev.tandem.extender.ui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("/ui in headless Chromium")
class TopologyPageIT {

  private static final Path SCREENSHOT = Path.of("target", "ui", "topology-page-1280x800.png");

  private static Vertx vertx;
  private static String base;

  @TempDir
  static Path work;

  @BeforeAll
  static void startServer() throws Exception {
    HeadlessChromium.requireInstalled();
    vertx = Vertx.vertx();
    HttpServer server = CannedTopologyServer.start(vertx).toCompletionStage().toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterAll
  static void stopServer() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  @DisplayName("lists the nodes and draws the selected node's GPUs and HCAs with their states and pods")
  void rendersNodesTreeAndStates() throws Exception {
    String dom = new HeadlessChromium(work).dumpDom(base + "/ui/#node=xe8640");

    assertTrue(dom.contains("data-node=\"xe8640\""), "node list names xe8640");
    assertTrue(dom.contains("data-node=\"relion-p100\""), "node list names relion-p100");
    assertTrue(dom.contains("<h2 id=\"node-title\">xe8640</h2>"), "the selected node is xe8640");
    assertTrue(dom.contains("data-kind=\"ok\""), "status says the last refresh worked");
    assertDevice(dom, "mlx5_0", "allocated");
    assertDevice(dom, "mlx5_1", "unhealthy");
    assertDevice(dom, "mlx5_2", "assumed");
    assertDevice(dom, "mlx5_3", "free");
    assertTrue(dom.contains("llama-train-0"), "allocated devices are labelled with their pod");
    assertTrue(dom.contains("nccl-bench-7"), "assumed devices are labelled with their pod");
    assertTrue(dom.contains("PCIe switch"), "switches are drawn");
  }

  @Test
  @DisplayName("saves a 1280x800 screenshot of the page")
  void savesScreenshot() throws Exception {
    new HeadlessChromium(work).screenshot(base + "/ui/#node=xe8640", SCREENSHOT);

    assertTrue(Files.isRegularFile(SCREENSHOT), "screenshot written to " + SCREENSHOT);
    assertTrue(Files.size(SCREENSHOT) > 30_000, "screenshot has content: " + Files.size(SCREENSHOT) + " bytes");
    assertEquals("1280x800", pngSize(SCREENSHOT));
  }

  private static void assertDevice(String dom, String id, String state) {
    String chip = "data-device-id=\"" + id + "\" data-state=\"" + state + "\"";
    assertTrue(dom.contains(chip), "device " + id + " is drawn as " + state + "; looked for " + chip);
  }

  private static String pngSize(Path png) throws IOException {
    try (InputStream in = Files.newInputStream(png); DataInputStream data = new DataInputStream(in)) {
      byte[] header = data.readNBytes(16);
      assertEquals((byte) 0x89, header[0], "PNG signature");
      assertEquals("IHDR", new String(header, 12, 4, java.nio.charset.StandardCharsets.US_ASCII));
      return data.readInt() + "x" + data.readInt();
    }
  }
}
