package dev.tandem.kubelet.podresources;

import static dev.tandem.kubelet.podresources.FakeKubelet.container;
import static dev.tandem.kubelet.podresources.FakeKubelet.devices;
import static dev.tandem.kubelet.podresources.FakeKubelet.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kubelet.podresources.v1.AllocatableResourcesResponse;
import dev.tandem.kubelet.podresources.v1.CDIDevice;
import dev.tandem.kubelet.podresources.v1.ClaimResource;
import dev.tandem.kubelet.podresources.v1.ContainerDevices;
import dev.tandem.kubelet.podresources.v1.ContainerResources;
import dev.tandem.kubelet.podresources.v1.DynamicResource;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesResponse;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(VertxExtension.class)
class PodResourcesClientIT {

  @TempDir Path dir;

  private Vertx vertx;
  private FakeKubelet kubelet;
  private PodResourcesClient client;

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    this.vertx = vertx;
    kubelet = new FakeKubelet();
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    client = PodResourcesClient.create(vertx, dir.resolve("kubelet.sock"), Duration.ofSeconds(15));
  }

  @AfterEach
  void tearDown() {
    client.close().await();
    kubelet.stop().await();
  }

  @Test
  @DisplayName("every request carries :authority localhost, as current grpc-go kubelets require")
  void sendsAuthority() {
    client.list().await();
    client.allocatable().await();
    assertEquals(List.of("localhost", "localhost"), kubelet.authorities);
  }

  @Test
  @DisplayName(
      "List: per-device entries are merged per container and resource; partial allocations show as they are")
  void list() {
    List<ContainerDevices> gpus = new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-b", "GPU-a"));
    gpus.addAll(devices("rdma/hca", 0, "mlx5_0"));
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(
                pod("ml", "train-0", container("main", gpus), container("sidecar", List.of())))
            .addPodResources(
                pod("ml", "train-1", container("main", devices("rdma/hca", 1, "mlx5_2"))))
            .build());

    List<PodDevices> pods = client.list().await();

    assertEquals(
        List.of(
            new PodDevices(
                "ml",
                "train-0",
                "main",
                Map.of("nvidia.com/gpu", List.of("GPU-a", "GPU-b"), "rdma/hca", List.of("mlx5_0"))),
            new PodDevices("ml", "train-0", "sidecar", Map.of()),
            new PodDevices("ml", "train-1", "main", Map.of("rdma/hca", List.of("mlx5_2")))),
        pods);
    assertEquals(List.of(), pods.get(2).ids("nvidia.com/gpu"));
  }

  @Test
  @DisplayName(
      "List: DRA devices (dynamic_resources) come per claim and device, in the kubelet's order")
  void listDynamicResources() {
    DynamicResource claim =
        DynamicResource.newBuilder()
            .setClaimNamespace("ml")
            .setClaimName("train-0-devices-x7k")
            .addClaimResources(claimResource("tandem.dev", "node-1", "mlx5-0"))
            .addClaimResources(claimResource("gpu.nvidia.com", "node-1", "gpu-0"))
            .build();
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(
                pod(
                    "ml",
                    "train-0",
                    ContainerResources.newBuilder()
                        .setName("main")
                        .addDynamicResources(claim)
                        .build()))
            .build());

    List<PodDevices> pods = client.list().await();

    assertEquals(
        List.of(
            new PodDevices(
                "ml",
                "train-0",
                "main",
                Map.of(),
                List.of(
                    new ClaimDevice("ml", "train-0-devices-x7k", "tandem.dev", "node-1", "mlx5-0"),
                    new ClaimDevice(
                        "ml", "train-0-devices-x7k", "gpu.nvidia.com", "node-1", "gpu-0")))),
        pods);
  }

  private static ClaimResource claimResource(String driver, String pool, String device) {
    return ClaimResource.newBuilder()
        .setDriverName(driver)
        .setPoolName(pool)
        .setDeviceName(device)
        .addCdiDevices(CDIDevice.newBuilder().setName("k8s." + driver + "/claim=x"))
        .build();
  }

  @Test
  @DisplayName(
      "GetAllocatableResources: a device on two NUMA nodes (two entries) becomes one device with both")
  void allocatable() {
    List<ContainerDevices> d = new ArrayList<>(devices("rdma/hca", 0, "mlx5_0", "mlx5_1"));
    d.addAll(devices("rdma/hca", 1, "mlx5_1"));
    d.add(
        ContainerDevices.newBuilder()
            .setResourceName("nvidia.com/gpu")
            .addDeviceIds("GPU-x")
            .build());
    kubelet.allocatable.set(AllocatableResourcesResponse.newBuilder().addAllDevices(d).build());

    assertEquals(
        List.of(
            new AllocatableDevice("nvidia.com/gpu", "GPU-x", List.of()),
            new AllocatableDevice("rdma/hca", "mlx5_0", List.of(0)),
            new AllocatableDevice("rdma/hca", "mlx5_1", List.of(0, 1))),
        client.allocatable().await());
  }

  @Test
  @DisplayName(
      "a kubelet that takes the call and does not answer: the call fails on its timeout, naming the"
          + " socket and method")
  void timeout() {
    Promise<Void> never = Promise.promise();
    kubelet.stall.set(never.future());
    PodResourcesClient quick =
        PodResourcesClient.create(vertx, dir.resolve("kubelet.sock"), Duration.ofMillis(300));
    PodResourcesException e = assertThrows(PodResourcesException.class, () -> quick.list().await());
    assertEquals(List.of("localhost"), kubelet.authorities, "the kubelet took the call");
    assertInstanceOf(TimeoutException.class, e.getCause(), e.getMessage());
    assertTrue(
        e.getMessage().contains("kubelet.sock") && e.getMessage().contains("List"), e.getMessage());
    never.complete();
    quick.close().await();
  }

  @Test
  @DisplayName("a missing socket fails the call with the socket's path")
  void missingSocket() {
    PodResourcesClient absent =
        PodResourcesClient.create(vertx, dir.resolve("absent.sock"), Duration.ofSeconds(1));
    PodResourcesException e =
        assertThrows(PodResourcesException.class, () -> absent.list().await());
    assertTrue(e.getMessage().contains("absent.sock"), e.getMessage());
    absent.close().await();
  }
}
