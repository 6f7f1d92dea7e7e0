package dev.tandem.dra;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.pluginregistration.v1.InfoRequest;
import dev.tandem.kubelet.pluginregistration.v1.PluginInfo;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationGrpcClient;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatus;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's composition on a fixture machine (a sysfs tree written by {@code FakeSysfs}),
 * against fabric8's mock API server and real Unix sockets in a temp directory, called as the
 * kubelet calls them.
 */
@EnableKubernetesMockClient(crud = true)
@DisplayName(
    "the DRA driver daemon: slices published, sockets served, re-published on registration")
class DraDriverMockTest {

  static KubernetesClient client;

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();

  @BeforeEach
  void node() {
    slices().forEach(s -> client.resource(s).delete());
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n1").endMetadata().build())
        .createOr(existing -> existing.update());
  }

  @AfterEach
  void close() {
    vertx.close().await();
  }

  static List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  DraConfig config() throws Exception {
    Path root = FakeSysfs.write(dir.resolve("root"), TestMachines.twoSwitchesAndLoneHca("n1"));
    return DraConfig.parse(
        new String[] {
          "--node-name=n1",
          "--sysfs-only",
          "--sysfs-root=" + root,
          "--plugin-registry-dir=" + dir.resolve("registry"),
          "--plugin-dir=" + dir.resolve("plugin"),
          "--cdi-dir=" + dir.resolve("cdi"),
          "--ops-port=0"
        },
        Map.of());
  }

  RegistrationGrpcClient kubelet(Path socket) {
    return RegistrationGrpcClient.create(
        KubeletGrpcClient.create(vertx), SocketAddress.domainSocketAddress(socket.toString()));
  }

  @Test
  @DisplayName(
      "start: the node's HCAs in a slice, GetInfo names the DRA socket; registered: ready, slices"
          + " deleted by a kubelet come back; stop removes both sockets")
  void runs() throws Exception {
    DraConfig config = config();
    DraDriver driver = DraDriver.start(vertx, config, client).await();

    List<ResourceSlice> published = slices();
    assertEquals(1, published.size());
    ResourceSlice slice = published.get(0);
    assertEquals("n1-tandem.dev-0", slice.getMetadata().getName());
    assertEquals("n1", slice.getSpec().getNodeName());
    assertEquals("tandem.dev", slice.getSpec().getDriver());
    assertEquals(driver.pool().devices().size(), slice.getSpec().getDevices().size());
    assertFalse(slice.getSpec().getDevices().isEmpty());
    assertTrue(
        slice.getSpec().getDevices().stream().noneMatch(d -> d.getName().startsWith("gpu-")),
        "HCAs only by default");

    Path reg = config.registrationSocket();
    assertEquals(dir.resolve("registry/tandem.dev-reg.sock"), reg);
    PluginInfo info = kubelet(reg).getInfo(InfoRequest.getDefaultInstance()).await();
    assertEquals("DRAPlugin", info.getType());
    assertEquals("tandem.dev", info.getName());
    assertEquals(dir.resolve("plugin/dra.sock").toAbsolutePath().toString(), info.getEndpoint());
    assertEquals(List.of("v1.DRAPlugin"), info.getSupportedVersionsList());
    assertTrue(Files.exists(config.draSocket()));
    assertTrue(driver.notReady().orElseThrow().contains("has not registered"));

    // a restarted kubelet deletes the node's slices, then registers the driver again
    slices().forEach(s -> client.resource(s).delete());
    kubelet(reg)
        .notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build())
        .await();
    await().atMost(Duration.ofSeconds(10)).until(() -> slices().size() == 1);
    assertTrue(driver.notReady().isEmpty(), () -> driver.notReady().get());

    driver.stop().await();
    assertFalse(Files.exists(reg), "the registration socket is removed: the kubelet deregisters");
    assertFalse(Files.exists(config.draSocket()));
  }

  @Test
  @DisplayName("joint mode without NVIDIA's CDI spec naming the GPUs: the start fails naming them")
  void jointNeedsNvidiaSpec() throws Exception {
    DraConfig hcaOnly = config();
    DraConfig joint =
        new DraConfig(
            hcaOnly.driver(),
            hcaOnly.pluginRegistryDir(),
            hcaOnly.pluginDir(),
            hcaOnly.cdiDir(),
            hcaOnly.mode(),
            hcaOnly.sharesPerHca(),
            hcaOnly.deviceInfoDir(),
            true,
            hcaOnly.node(),
            null,
            0);
    Throwable e =
        DraDriver.start(vertx, joint, client)
            .toCompletionStage()
            .toCompletableFuture()
            .handle((d, t) -> t)
            .get();
    assertTrue(e != null && e.getMessage().contains("GPU"), String.valueOf(e));
    assertFalse(Files.exists(joint.registrationSocket()), "nothing served");
  }
}
