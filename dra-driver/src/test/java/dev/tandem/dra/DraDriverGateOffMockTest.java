package dev.tandem.dra;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.publish.DroppedField;
import dev.tandem.dra.publish.GateOffApiServer;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running driver, rediscovering every second, against an API server that drops device taints
 * (DRADeviceTaints off, Kubernetes 1.34-1.35): a port going DOWN is written once, not at every
 * rediscovery after, and {@code /healthz} and {@code /metrics} say the taints are dropped.
 */
@DisplayName("the DRA driver against an API server without DRADeviceTaints: no rewrite loop")
class DraDriverGateOffMockTest {

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();
  final HttpClient http = HttpClient.newHttpClient();
  final GateOffApiServer server = new GateOffApiServer(Set.of(DroppedField.DEVICE_TAINTS));
  Path root;
  DraDriver driver;
  int opsPort;

  @BeforeEach
  void start() throws Exception {
    server
        .client()
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .create();
    root = FakeSysfs.write(dir.resolve("root"), TestMachines.twoSwitchesAndLoneHca("n1"));
    driver = start(root);
  }

  DraDriver start(Path sysfs) {
    DraConfig config =
        DraConfig.parse(DraDriverMockTest.args(dir, sysfs, "--rediscover-interval=1"), Map.of());
    DraDriver d = DraDriver.start(vertx, config, server.client()).await();
    opsPort = d.listenOps(0).await();
    return d;
  }

  @AfterEach
  void stop() {
    driver.stop().await();
    vertx.close().await();
    server.close();
  }

  String get(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + opsPort + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  double unchangedRounds() throws Exception {
    Matcher m =
        Pattern.compile("tandem_dra_rediscoveries_total\\{outcome=\"unchanged\"[^}]*} ([0-9.E]+)")
            .matcher(get("/metrics"));
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  @Test
  @DisplayName(
      "a port DOWN: one write, none in the rounds after nor after a restart; /healthz and /metrics"
          + " name the dropped taints")
  void portDown() throws Exception {
    assertEquals(1, server.sliceWrites());
    FakeSysfs.portState(root, "mlx5_0", "1: DOWN");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.sliceWrites() == 2);
    double after = unchangedRounds();
    await().atMost(Duration.ofSeconds(15)).until(() -> unchangedRounds() >= after + 3);
    assertEquals(2, server.sliceWrites(), "no rewrite at the rounds after the change");
    String healthz = get("/healthz");
    assertTrue(healthz.contains("does not keep device taints"), healthz);
    assertTrue(
        get("/metrics")
            .contains("tandem_dra_api_server_dropped_fields{gate=\"DRADeviceTaints\"} 1.0"),
        get("/metrics"));

    driver.stop().await();
    driver = start(root);
    await().atMost(Duration.ofSeconds(10)).until(() -> unchangedRounds() >= 2);
    assertEquals(2, server.sliceWrites(), "no write by the restarted driver");
    assertTrue(get("/healthz").contains("does not keep device taints"), get("/healthz"));
  }
}
