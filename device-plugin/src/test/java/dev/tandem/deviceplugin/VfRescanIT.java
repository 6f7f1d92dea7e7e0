package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.pods.KubeletPodResources;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.PodResourcesStandIn;
import dev.tandem.deviceplugin.standin.RescanWiring;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SR-IOV VFs removed and created again ({@code sriov_numvfs} written twice) on a node the plugin
 * reads through sysfs, while it runs: the kubelet stand-in's open ListAndWatch stream, Allocate and
 * GetPreferredAllocation (with locality) follow, without a plugin restart.
 */
@DisplayName(
    "re-created SR-IOV VFs reach ListAndWatch, Allocate and GetPreferredAllocation without a"
        + " restart")
@ExtendWith(VertxExtension.class)
class VfRescanIT {

  @TempDir Path sysfs;
  Path dir;
  Vertx vertx;
  KubeletStandIn kubelet;
  DevicePlugin plugin;

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
      "VFs at 15:00.1-2 removed, then created at 15:00.4-5: the stream lists none, then the new"
          + " addresses; Allocate grants a new VF and refuses an old one")
  void vfsRecreated() throws Exception {
    Machine pf = TestMachines.twoSwitchesAndLoneHca("n1");
    node(TestMachines.withVirtualFunctions(pf, "mlx5_0", 1, "mlx5_3", "mlx5_4"));
    TopologySource source = TopologySources.create(DiscoveryOptions.sysfs("n1", sysfs));
    plugin = new DevicePlugin(vertx, wiring(source, null, null));
    plugin.start().await();

    awaitIds(List.of("0000:15:00.1", "0000:15:00.2"));

    node(pf);
    awaitIds(List.of());

    node(TestMachines.withVirtualFunctions(pf, "mlx5_0", 4, "mlx5_5", "mlx5_6"));
    awaitIds(List.of("0000:15:00.4", "0000:15:00.5"));

    List<String> preferred = preferredOne(List.of("0000:15:00.4", "0000:15:00.5"));
    assertEquals(1, preferred.size(), "GetPreferredAllocation answers for the new VFs");
    assertTrue(
        List.of("0000:15:00.4", "0000:15:00.5").containsAll(preferred), preferred.toString());
    assertEquals(1, kubelet.allocate(request("0000:15:00.4")).getContainerResponsesCount());
    String old = kubelet.allocateStatus(request("0000:15:00.1"));
    assertTrue(
        old.startsWith("INVALID_ARGUMENT: unknown rdma/hca device id 0000:15:00.1 on node n1"),
        old);
  }

  @Test
  @DisplayName(
      "VFs of mlx5_0 and mlx5_2 re-created at new addresses: the container holding a GPU of"
          + " mlx5_2's switch is preferred a new VF of mlx5_2, not the kubelet's first nor its"
          + " plan's mlx5_0")
  void recreatedVfsKeepTheirLocality() throws Exception {
    Machine pfs = TestMachines.twoSwitchesAndLoneHca("n1");
    node(vfs(pfs, 1, "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6"));
    TopologySource source = TopologySources.create(DiscoveryOptions.sysfs("n1", sysfs));
    String gpu =
        source.discover().machine().gpus().stream()
            .filter(g -> g.numaNode() == 1)
            .findFirst()
            .orElseThrow()
            .id();
    PodResourcesStandIn pr = new PodResourcesStandIn(vertx, dir.resolve("pod-resources.sock"));
    pr.holds("team", "p", "train", "nvidia.com/gpu", List.of(gpu));
    pr.start().await();
    Plan plan =
        new Plan(
            "n1",
            List.of(gpu),
            List.of("mlx5_0"),
            "PXB",
            "switch/required",
            Instant.parse("2026-11-24T20:00:00Z"));
    PlannedPod pod = new PlannedPod("team", "p", plan, Map.of("train", 1));
    plugin =
        new DevicePlugin(
            vertx,
            wiring(
                source,
                n -> Future.succeededFuture(List.of(pod)),
                new KubeletPodResources(
                    vertx, dir.resolve("pod-resources.sock"), Duration.ofSeconds(1))));
    plugin.start().await();
    awaitIds(List.of("0000:15:00.1", "0000:15:00.2", "0000:95:00.1", "0000:95:00.2"));

    node(vfs(pfs, 4, "mlx5_7", "mlx5_8", "mlx5_9", "mlx5_10"));
    List<String> recreated =
        List.of("0000:15:00.4", "0000:15:00.5", "0000:95:00.4", "0000:95:00.5");
    awaitIds(recreated);

    List<String> preferred = preferredOne(recreated);
    assertEquals(1, preferred.size(), preferred.toString());
    assertTrue(
        List.of("0000:95:00.4", "0000:95:00.5").containsAll(preferred),
        "a new VF of mlx5_2, under the switch of " + gpu + ": " + preferred);
  }

  /** GetPreferredAllocation for one device of {@code available}, as the kubelet asks it. */
  private List<String> preferredOne(List<String> available) {
    return kubelet
        .preferred(
            PreferredAllocationRequest.newBuilder()
                .addContainerRequests(
                    ContainerPreferredAllocationRequest.newBuilder()
                        .addAllAvailableDeviceIDs(available)
                        .setAllocationSize(1))
                .build())
        .getContainerResponses(0)
        .getDeviceIDsList();
  }

  /** The machine with two VFs of mlx5_0 and two of mlx5_2, at functions {@code first}, …. */
  private static Machine vfs(Machine pfs, int first, String... names) {
    return TestMachines.withVirtualFunctions(
        TestMachines.withVirtualFunctions(pfs, "mlx5_0", first, names[0], names[1]),
        "mlx5_2",
        first,
        names[2],
        names[3]);
  }

  private PluginWiring wiring(
      TopologySource source, PendingPlans plans, PodResourcesSource podResources) {
    return RescanWiring.of(
        source,
        ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"),
        plans,
        podResources,
        dir,
        sysfs,
        kubelet);
  }

  /** The node's sysfs as the kernel shows it after the change: the old tree gone, the new one. */
  private void node(Machine m) throws IOException {
    FakeSysfs.replace(sysfs, m);
  }

  private void awaitIds(List<String> want) throws InterruptedException {
    kubelet.awaitIds(want, Duration.ofSeconds(15));
  }

  private static AllocateRequest request(String id) {
    return AllocateRequest.newBuilder()
        .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(id))
        .build();
  }
}
