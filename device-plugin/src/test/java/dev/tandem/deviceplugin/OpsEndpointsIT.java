package dev.tandem.deviceplugin;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.StandInWiring;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("the device plugin's /healthz, /readyz and /metrics over loopback HTTP")
@ExtendWith(VertxExtension.class)
class OpsEndpointsIT {

  @TempDir Path sysfs;
  final HttpClient http = HttpClient.newHttpClient();
  Path dir;
  Vertx vertx;
  KubeletStandIn kubelet;
  DevicePlugin plugin;
  int port;

  @BeforeEach
  void setUp(Vertx vertx, KubeletStandIn kubelet) {
    this.vertx = vertx;
    this.kubelet = kubelet;
    dir = kubelet.dir();
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.stop().await();
    }
  }

  @Test
  @DisplayName(
      "not ready (503, naming the kubelet socket) until the kubelet comes; then ready, and"
          + " registration, a plan-following preferred allocation, a refused Allocate and a port"
          + " going down are counted")
  void readinessAndCounters() throws Exception {
    Machine m = TestMachines.twoSockets("n1");
    FakeSysfs.write(sysfs, m);
    kubelet.stop().await(); // the kubelet comes later
    Plan plan =
        new Plan(
            "n1",
            List.of("GPU-1"),
            List.of("mlx5_1"),
            "PIX",
            "switch/required",
            Instant.parse("2026-11-22T03:00:00Z"));
    PlannedPod pod = new PlannedPod("team", "p", plan, Map.of("train", 1));
    plugin =
        new DevicePlugin(
            vertx,
            StandInWiring.of(
                    m,
                    ResourceConfig.DEFAULT.withHealthInterval(Duration.ofSeconds(1)),
                    dir,
                    sysfs,
                    kubelet)
                .plans(node -> Future.succeededFuture(List.of(pod)))
                .build());
    port = plugin.listenOps(0).await();
    plugin.start().await();

    assertEquals(200, get("/healthz").statusCode());
    HttpResponse<String> notReady = get("/readyz");
    assertEquals(503, notReady.statusCode());
    String reason = new JsonObject(notReady.body()).getString("reason");
    assertTrue(reason.startsWith("rdma/hca: "), reason);
    assertEquals(0.0, scrape().get(series("registered", "")));

    kubelet.start().await();
    assertNotNull(kubelet.nextList(5000), "no registration");
    await().atMost(Duration.ofSeconds(5)).until(() -> get("/readyz").statusCode() == 200);
    assertEquals(
        true,
        new JsonObject(get("/healthz").body()).getJsonObject("registered").getBoolean("rdma/hca"));

    List<String> got =
        kubelet
            .preferred(
                PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(
                        ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(List.of("mlx5_0", "mlx5_1"))
                            .setAllocationSize(1))
                    .build())
            .getContainerResponses(0)
            .getDeviceIDsList();
    assertEquals(List.of("mlx5_1"), got);
    String refused =
        kubelet.allocateStatus(
            AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("mlx5_7"))
                .build());
    assertTrue(refused.startsWith("INVALID_ARGUMENT"), refused);
    FakeSysfs.portState(sysfs, "mlx5_1", "1: DOWN");
    assertNotNull(kubelet.nextList(5000), "health change not streamed");

    HttpResponse<String> metrics = get("/metrics");
    assertTrue(
        metrics.headers().firstValue("content-type").orElse("").startsWith("text/plain"),
        metrics.headers().toString());
    Map<String, Double> s = scrape();
    assertEquals(1.0, s.get(series("registered", "")), metrics.body());
    assertEquals(1.0, s.get(series("registrations_total", ",result=\"registered\"")));
    assertEquals(0.0, s.get(series("registrations_total", ",result=\"failed\"")));
    assertEquals(
        1.0,
        s.get(
            "tandem_device_plugin_preferred_allocations_total{outcome=\"followed_plan\",resource=\"rdma/hca\"}"));
    assertEquals(
        0.0,
        s.get(
            "tandem_device_plugin_preferred_allocations_total{outcome=\"fallback\",resource=\"rdma/hca\"}"));
    assertEquals(
        0.0,
        s.get(
            "tandem_device_plugin_preferred_allocations_total{outcome=\"followed_gpus\",resource=\"rdma/hca\"}"));
    assertEquals(1.0, s.get(series("allocate_errors_total", "")));
    assertEquals(
        1.0,
        s.get(
            "tandem_device_plugin_health_transitions_total"
                + "{device=\"mlx5_1\",resource=\"rdma/hca\",to=\"unhealthy\"}"),
        metrics.body());
    assertEquals(
        null,
        s.get(
            "tandem_device_plugin_health_transitions_total"
                + "{device=\"mlx5_0\",resource=\"rdma/hca\",to=\"healthy\"}"),
        "the first reading is no transition");
  }

  /**
   * A series of the plugin's metric {@code name}, resource rdma/hca, then {@code labels} (labels
   * are exposed in alphabetical order).
   */
  private static String series(String name, String labels) {
    return "tandem_device_plugin_" + name + "{resource=\"rdma/hca\"" + labels + "}";
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The sample lines of the text exposition format, series (name and labels as exposed) to value.
   * Label values here never hold spaces, so the value is what follows the last space.
   */
  private Map<String, Double> scrape() throws Exception {
    HttpResponse<String> r = get("/metrics");
    assertEquals(200, r.statusCode());
    Map<String, Double> out = new HashMap<>();
    for (String line : r.body().split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
    }
    return out;
  }
}
