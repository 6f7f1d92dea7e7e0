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
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
    Node node = client.nodes().withName("n1").get();
    node.setStatus(null);
    client.nodes().resource(node).updateStatus();
  }

  @AfterEach
  void close() {
    vertx.close().await();
  }

  static List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems();
  }

  DraConfig config(String... extra) throws Exception {
    Path root = FakeSysfs.write(dir.resolve("root"), TestMachines.twoSwitchesAndLoneHca("n1"));
    return DraConfig.parse(args(dir, root, extra), Map.of());
  }

  /** The flags of a driver on the sysfs tree {@code root}, its directories under {@code dir}. */
  static String[] args(Path dir, Path root, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--node-name=n1",
                "--sysfs-only",
                "--sysfs-root=" + root,
                "--plugin-registry-dir=" + dir.resolve("registry"),
                "--plugin-dir=" + dir.resolve("plugin"),
                "--cdi-dir=" + dir.resolve("cdi"),
                "--ops-port=0"));
    args.addAll(List.of(extra));
    return args.toArray(String[]::new);
  }

  /** Why the start failed; null when it did not. */
  Throwable startError(DraConfig config) throws Exception {
    return DraDriver.start(vertx, config, client)
        .toCompletionStage()
        .toCompletableFuture()
        .handle((d, t) -> t)
        .get();
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
    assertEquals(List.of("v1.DRAPlugin", "v1.DRAResourceHealth"), info.getSupportedVersionsList());
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
    DraConfig joint = config("--joint");
    Throwable e = startError(joint);
    assertTrue(e != null && e.getMessage().contains("GPU"), String.valueOf(e));
    assertFalse(Files.exists(joint.registrationSocket()), "nothing served");
  }

  @Test
  @DisplayName(
      "joint mode on a node whose GPUs a device plugin publishes: the start fails naming it and"
          + " the fix, nothing served")
  void jointRefusedBesideAnotherPublisher() throws Exception {
    Node node = client.nodes().withName("n1").get();
    node.setStatus(
        new NodeStatusBuilder().addToCapacity("nvidia.com/gpu", new Quantity("8")).build());
    client.nodes().resource(node).updateStatus();
    DraConfig joint = config("--joint");
    Throwable e = startError(joint);
    String message = String.valueOf(e == null ? null : e.getMessage());
    assertTrue(message.contains("a device plugin (nvidia.com/gpu"), message);
    assertTrue(message.contains("without --joint (HCA-only mode"), message);
    assertTrue(message.contains("remove the other publisher"), message);
    assertFalse(Files.exists(joint.registrationSocket()), "nothing served");
    assertTrue(slices().isEmpty(), "nothing published");
  }
}
