package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.pods.KubeletPodResources;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.PodResourcesStandIn;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
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

@DisplayName(
    "GetPreferredAllocation through the kubelet stand-in, GPUs read from a PodResources stand-in")
@ExtendWith(VertxExtension.class)
class PreferredOverSocketsIT {

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
      "the admitted pod's container holds GPU-5 → mlx5_4/mlx5_5 under its top switch, counted as followed_gpus; PodResources sees :authority localhost")
  void followsHeldGpus() throws Exception {
    Machine m = RealMachines.dgxA100("n1");
    FakeSysfs.write(sysfs, m);
    PodResourcesStandIn pr = new PodResourcesStandIn(vertx, dir.resolve("pod-resources.sock"));
    pr.holds("team", "p", "train", "nvidia.com/gpu", List.of("GPU-5"));
    pr.start().await();
    Plan plan =
        new Plan(
            "n1",
            List.of("GPU-0"),
            List.of("mlx5_0", "mlx5_1"),
            "PXB",
            "switch/required",
            Instant.parse("2026-11-22T03:00:00Z"));
    PlannedPod pod = new PlannedPod("team", "p", plan, Map.of("train", 2));
    plugin =
        new DevicePlugin(
            vertx,
            PluginWiring.builder(
                    m, ResourceConfig.DEFAULT, dir.resolve("tandem-rdma.sock"), kubelet.socket())
                .sysfsRoot(sysfs)
                .probe(new PortStates(sysfs))
                .plans(node -> Future.succeededFuture(List.of(pod)))
                .podResources(
                    new KubeletPodResources(
                        vertx, dir.resolve("pod-resources.sock"), Duration.ofSeconds(1)))
                .lookupTimeout(Duration.ofMillis(1000))
                .backoff(PluginLifecycle.DEFAULT_BACKOFF)
                .build());
    plugin.start().await();
    assertNotNull(kubelet.nextList(5000));
    List<String> all =
        List.of(
            "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7",
            "mlx5_8", "mlx5_9");
    List<String> got =
        kubelet
            .preferred(
                PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(
                        ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(all)
                            .setAllocationSize(2))
                    .build())
            .getContainerResponses(0)
            .getDeviceIDsList();
    assertEquals(List.of("mlx5_4", "mlx5_5"), got);
    assertEquals(List.of("localhost"), pr.authorities());
    String metrics = plugin.metrics().scrape();
    assertTrue(
        metrics.contains(
            "tandem_device_plugin_preferred_allocations_total"
                + "{outcome=\"followed_gpus\",resource=\"rdma/hca\"} 1.0"),
        metrics);
  }
}
