package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.container.RdmaEnvironment;
import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.standin.DeviceManagerStandIn;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.request.ContainerShare;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "pod-scoped HCAs: each container of a pod steered to its share of the pod's plan, over the"
        + " plugin's socket, the kubelet's admission order played by the device-manager stand-in")
@ExtendWith(VertxExtension.class)
class PodScopeIT {

  private static final String HCA = "rdma/hca";
  private static final Instant AT = Instant.parse("2026-11-22T03:00:00Z");

  @TempDir Path sysfs;
  Path dir;
  Vertx vertx;
  DevicePlugin plugin;
  KubeletStandIn kubelet;

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

  private DeviceManagerStandIn start(ResourceConfig config, PlannedPod pod) throws Exception {
    Machine m = RealMachines.dgxA100("n1");
    FakeSysfs.write(sysfs, m);
    DeviceManagerStandIn[] dm = new DeviceManagerStandIn[1];
    plugin =
        new DevicePlugin(
            vertx,
            PluginWiring.builder(m, config, dir.resolve("tandem-rdma.sock"), kubelet.socket())
                .sysfsRoot(sysfs)
                .probe(new PortStates(sysfs))
                .plans(node -> Future.succeededFuture(List.of(pod)))
                .podResources(() -> dm[0].podResources().list())
                .lookupTimeout(Duration.ofMillis(1000))
                .backoff(PluginLifecycle.DEFAULT_BACKOFF)
                .build());
    plugin.start().await();
    ListAndWatchResponse list = kubelet.nextList(5000);
    dm[0] = new DeviceManagerStandIn(kubelet, 7).plugin(HCA, list);
    return dm[0];
  }

  /** A plan of these HCAs and no GPUs, with these per-container shares. */
  private static Plan plan(List<String> hcas, ContainerShare... shares) {
    return new Plan("n1", List.of(), hcas, "PIX", "switch/required", AT, List.of(shares));
  }

  private static PlannedPod pod(Plan plan, List<String> order, Set<String> init) {
    Map<String, Integer> limits =
        plan.containers().stream()
            .collect(Collectors.toMap(ContainerShare::name, c -> c.hcas().size()));
    return new PlannedPod("team", "p", plan, limits, Map.of(), order, init);
  }

  @Test
  @DisplayName(
      "hca mode, two containers: each gets exactly the HCA its share names (not the plan's first)")
  void hcaModeTwoContainers() throws Exception {
    Plan plan =
        plan(
            List.of("mlx5_5", "mlx5_4"),
            new ContainerShare("a", false, List.of(), List.of("mlx5_4")),
            new ContainerShare("b", false, List.of(), List.of("mlx5_5")));
    DeviceManagerStandIn dm = start(ResourceConfig.DEFAULT, pod(plan, List.of("a", "b"), Set.of()));
    assertEquals(List.of("mlx5_4"), dm.admit("team", "p", "a", Map.of(HCA, 1)).get(HCA));
    assertEquals(
        List.of("mlx5_5"),
        dm.admit("team", "p", "b", Map.of(HCA, 1)).get(HCA),
        "the second container is found though the pod already holds an HCA");
  }

  @Test
  @DisplayName(
      "shared mode, two containers on two HCAs: each a slot of its share's HCA, both with the"
          + " pod's two HCAs in NCCL_IB_HCA and UCX_NET_DEVICES and their uverbs devices")
  void sharedModeTwoContainers() throws Exception {
    Plan plan =
        plan(
            List.of("mlx5_6", "mlx5_7"),
            new ContainerShare("a", false, List.of(), List.of("mlx5_6")),
            new ContainerShare("b", false, List.of(), List.of("mlx5_7")));
    DeviceManagerStandIn dm =
        start(
            ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":8}", "test"),
            pod(plan, List.of("a", "b"), Set.of()));
    List<String> a = dm.admit("team", "p", "a", Map.of(HCA, 1)).get(HCA);
    List<String> b = dm.admit("team", "p", "b", Map.of(HCA, 1)).get(HCA);
    assertTrue(a.get(0).startsWith("mlx5_6-slot-"), a.toString());
    assertTrue(b.get(0).startsWith("mlx5_7-slot-"), b.toString());
    for (List<String> ids : List.of(a, b)) {
      ContainerAllocateResponse r = allocate(ids);
      assertEquals("=mlx5_6,mlx5_7", r.getEnvsOrThrow(RdmaEnvironment.NCCL_IB_HCA));
      assertEquals("mlx5_6:1,mlx5_7:1", r.getEnvsOrThrow(RdmaEnvironment.UCX_NET_DEVICES));
      assertEquals(String.join(",", ids), r.getEnvsOrThrow(RdmaEnvironment.TANDEM_RDMA_DEVICE_IDS));
      assertEquals(3, r.getDevicesCount(), "two uverbs devices and rdma_cm: " + r);
    }
  }

  @Test
  @DisplayName("hca mode: a container's environment names its own HCA only (the kubelet's grant)")
  void hcaModeOwnHcas() throws Exception {
    Plan plan =
        plan(
            List.of("mlx5_4", "mlx5_5"),
            new ContainerShare("a", false, List.of(), List.of("mlx5_4")),
            new ContainerShare("b", false, List.of(), List.of("mlx5_5")));
    DeviceManagerStandIn dm = start(ResourceConfig.DEFAULT, pod(plan, List.of("a", "b"), Set.of()));
    List<String> a = dm.admit("team", "p", "a", Map.of(HCA, 1)).get(HCA);
    assertEquals("=mlx5_4", allocate(a).getEnvsOrThrow(RdmaEnvironment.NCCL_IB_HCA));
  }

  @Test
  @DisplayName(
      "an init container's HCA, reused by the app container (must-include): the app container's"
          + " call is recognised and completed from its own share")
  void initContainerReused() throws Exception {
    Plan plan =
        plan(
            List.of("mlx5_4", "mlx5_5"),
            new ContainerShare("setup", true, List.of(), List.of("mlx5_4")),
            new ContainerShare("train", false, List.of(), List.of("mlx5_4", "mlx5_5")));
    start(ResourceConfig.DEFAULT, pod(plan, List.of("setup", "train"), Set.of("setup")));
    List<String> available =
        List.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_5", "mlx5_6", "mlx5_4");
    assertEquals(List.of("mlx5_4"), preferred(available, List.of(), 1), "setup first");
    assertEquals(
        Set.of("mlx5_4", "mlx5_5"),
        Set.copyOf(preferred(available, List.of("mlx5_4"), 2)),
        "train keeps the reused mlx5_4 and takes mlx5_5 from its share");
  }

  private List<String> preferred(List<String> available, List<String> mustInclude, int size) {
    return kubelet
        .preferred(
            HCA,
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(available)
                        .addAllMustIncludeDeviceIDs(mustInclude)
                        .setAllocationSize(size))
                .build())
        .getContainerResponses(0)
        .getDeviceIDsList();
  }

  private ContainerAllocateResponse allocate(List<String> ids) {
    return kubelet
        .allocate(
            HCA,
            AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids))
                .build())
        .getContainerResponses(0);
  }
}
