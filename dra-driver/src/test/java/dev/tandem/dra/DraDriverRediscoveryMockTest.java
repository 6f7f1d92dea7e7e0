package dev.tandem.dra;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.dra.claims.AllocatedClaims;
import dev.tandem.dra.health.DeviceCondition;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcClient;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.DRAResourceHealthGrpcClient;
import dev.tandem.kubelet.drahealth.v1.DeviceHealth;
import dev.tandem.kubelet.drahealth.v1.HealthStatus;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesResponse;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running driver on a {@code FakeSysfs} tree that changes between rediscoveries (every second),
 * against fabric8's mock API server and its real sockets: what changed is published again and told
 * to the kubelet's health stream, what did not is not written, a failed rediscovery keeps the last
 * pool, and Prepare sees the pool as it is now.
 */
@EnableKubernetesMockClient(crud = true)
@DisplayName("the DRA driver while running: rediscovery, re-publication on change, health stream")
class DraDriverRediscoveryMockTest {

  static KubernetesClient client;

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();
  final Machine machine = TestMachines.twoSwitchesAndLoneHca("n1");
  final AtomicBoolean broken = new AtomicBoolean();
  final HttpClient http = HttpClient.newHttpClient();
  Path root;
  DraDriver driver;
  int opsPort;

  @BeforeEach
  void start() throws Exception {
    client.dynamicResourceAllocation().v1().resourcesSlices().delete();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .createOr(existing -> existing.update());
    root = FakeSysfs.write(dir.resolve("root"), machine);
    DraConfig config =
        DraConfig.parse(DraDriverMockTest.args(dir, root, "--rediscover-interval=1"), Map.of());
    TopologySource real =
        TopologySources.create(config.node().into(DiscoveryOptions::fromNodeSettings));
    TopologySource source =
        () -> {
          if (broken.get()) {
            throw new IllegalStateException("sysfs under " + root + " is unreadable");
          }
          return real.discover();
        };
    driver = DraDriver.start(vertx, config, client, () -> source).await();
    opsPort = driver.listenOps(0).await();
  }

  @AfterEach
  void stop() {
    driver.stop().await();
    vertx.close().await();
  }

  static ResourceSlice slice() {
    List<ResourceSlice> all =
        client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
    assertEquals(1, all.size());
    return all.get(0);
  }

  static Optional<Device> device(String name) {
    return slice().getSpec().getDevices().stream().filter(d -> d.getName().equals(name)).findAny();
  }

  static String taint(String device) {
    return device(device)
        .map(d -> d.getTaints().isEmpty() ? "" : d.getTaints().get(0).getValue())
        .orElse(null);
  }

  String get(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + opsPort + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** The value of {@code tandem_dra_rediscoveries_total{outcome=...}} on /metrics. */
  double rediscoveries(String outcome) throws Exception {
    Matcher m =
        Pattern.compile(
                "tandem_dra_rediscoveries_total\\{outcome=\"" + outcome + "\"[^}]*} ([0-9.E]+)")
            .matcher(get("/metrics"));
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  List<NodeWatchResourcesResponse> watchHealth() {
    List<NodeWatchResourcesResponse> heard = new CopyOnWriteArrayList<>();
    DRAResourceHealthGrpcClient.create(
            KubeletGrpcClient.create(vertx),
            SocketAddress.domainSocketAddress(dir.resolve("plugin/dra.sock").toString()))
        .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance())
        .onSuccess(stream -> stream.handler(heard::add));
    return heard;
  }

  static Optional<HealthStatus> health(List<NodeWatchResourcesResponse> heard, String device) {
    if (heard.isEmpty()) {
      return Optional.empty();
    }
    return heard.get(heard.size() - 1).getDevicesList().stream()
        .filter(d -> d.getDevice().getDeviceName().equals(device))
        .map(DeviceHealth::getHealth)
        .findAny();
  }

  @Test
  @DisplayName(
      "rounds that find the same node write nothing; a port going DOWN taints its HCA at the next"
          + " generation, and the health stream says UNHEALTHY")
  void portDown() throws Exception {
    List<NodeWatchResourcesResponse> heard = watchHealth();
    await().atMost(Duration.ofSeconds(10)).until(() -> health(heard, "mlx5-0").isPresent());
    assertEquals(HealthStatus.HEALTHY, health(heard, "mlx5-0").get());
    String version = slice().getMetadata().getResourceVersion();
    assertEquals(1L, slice().getSpec().getPool().getGeneration());
    await().atMost(Duration.ofSeconds(10)).until(() -> rediscoveries("unchanged") >= 2);
    assertEquals(version, slice().getMetadata().getResourceVersion(), "no write when unchanged");

    FakeSysfs.portState(root, "mlx5_0", "1: DOWN");
    await().atMost(Duration.ofSeconds(10)).until(() -> "port-not-active".equals(taint("mlx5-0")));
    assertEquals(2L, slice().getSpec().getPool().getGeneration());
    assertEquals("", taint("mlx5-2"), "the other HCAs stay healthy");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> health(heard, "mlx5-0").equals(Optional.of(HealthStatus.UNHEALTHY)));
    assertEquals(Optional.of(HealthStatus.HEALTHY), health(heard, "mlx5-2"));
    assertTrue(rediscoveries("changed") >= 1);
    assertTrue(get("/healthz").contains("\"unhealthyDevices\":1"), get("/healthz"));
  }

  @Test
  @DisplayName(
      "an RDMA driver unloaded: the HCA comes back tainted under its PCI name, and Prepare of a"
          + " claim given its old name says the node no longer has it")
  void driverUnloaded() throws Exception {
    FakeSysfs.replace(root, TestMachines.withoutRdmaDriver(machine, "mlx5_1"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "no-rdma-driver".equals(taint("hca-0000-21-00-0")));
    assertTrue(device("mlx5-1").isEmpty());
    assertTrue(driver.pool().devices().stream().noneMatch(d -> d.name().equals("mlx5-1")));

    claimOf("mlx5-1");
    GrpcClient kubelet = KubeletGrpcClient.create(vertx);
    String error =
        DRAPluginGrpcClient.create(
                kubelet,
                SocketAddress.domainSocketAddress(dir.resolve("plugin/dra.sock").toString()))
            .nodePrepareResources(
                NodePrepareResourcesRequest.newBuilder()
                    .addClaims(
                        Claim.newBuilder()
                            .setNamespace("team")
                            .setName("c1")
                            .setUid(claimUid())
                            .build())
                    .build())
            .await()
            .getClaimsOrThrow(claimUid())
            .getError();
    kubelet.close().await();
    assertTrue(
        error.contains("was given device mlx5-1, which this driver does not publish on node n1"),
        error);
  }

  @Test
  @DisplayName(
      "a failed rediscovery keeps the last pool published, is counted and shown, its devices"
          + " UNKNOWN; the next good one recovers")
  void failureKeepsPool() throws Exception {
    String version = slice().getMetadata().getResourceVersion();
    broken.set(true);
    await().atMost(Duration.ofSeconds(10)).until(() -> rediscoveries("failed") >= 1);
    assertEquals(version, slice().getMetadata().getResourceVersion());
    assertEquals(3, driver.pool().devices().size());
    assertTrue(get("/healthz").contains("is unreadable"), get("/healthz"));
    assertTrue(
        driver.health().latest().orElseThrow().devices().stream()
            .allMatch(d -> d.health() == DeviceCondition.Health.UNKNOWN));

    broken.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> !get("/healthz").contains("unreadable"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> driver.health().latest().orElseThrow().notHealthy() == 0);
    assertEquals(version, slice().getMetadata().getResourceVersion());
  }

  /** The UID the API server gave the claim. */
  static String claimUid() {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("team")
        .withName("c1")
        .get()
        .getMetadata()
        .getUid();
  }

  static void claimOf(String device) {
    AllocatedClaims.create(client, "team", "c1", "hca", "n1", List.of(device));
  }
}
