package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.RescanWiring;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HCA whose RDMA driver is loaded after the plugin started (its PCI function there, no {@code
 * infiniband/} until {@code modprobe mlx5_ib}), on a node the plugin reads through sysfs: the
 * kubelet stand-in's open ListAndWatch stream and Allocate take it up without a plugin restart, in
 * the modes that offer whole HCAs or their slots.
 */
@DisplayName("an HCA whose RDMA driver is loaded later is offered without a restart")
@ExtendWith(VertxExtension.class)
class DriverLoadedLaterIT {

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
      "hca mode: mlx5_1 without its driver is not listed; once loaded the stream lists it and"
          + " Allocate grants it")
  void hcaMode() throws Exception {
    start("{\"mode\":\"hca\"}");
    awaitIds(List.of("mlx5_0", "mlx5_2"));

    node(TestMachines.twoSwitchesAndLoneHca("n1"));
    awaitIds(List.of("mlx5_0", "mlx5_1", "mlx5_2"));
    assertEquals(1, kubelet.allocate(request("mlx5_1")).getContainerResponsesCount());
  }

  @Test
  @DisplayName("shared mode: the HCA's slots appear once its driver is loaded")
  void sharedMode() throws Exception {
    start("{\"mode\":\"shared\",\"slotsPerHca\":2}");
    awaitIds(List.of("mlx5_0-slot-0", "mlx5_0-slot-1", "mlx5_2-slot-0", "mlx5_2-slot-1"));

    node(TestMachines.twoSwitchesAndLoneHca("n1"));
    awaitIds(
        List.of(
            "mlx5_0-slot-0",
            "mlx5_0-slot-1",
            "mlx5_1-slot-0",
            "mlx5_1-slot-1",
            "mlx5_2-slot-0",
            "mlx5_2-slot-1"));
    assertEquals(1, kubelet.allocate(request("mlx5_1-slot-1")).getContainerResponsesCount());
  }

  /** The plugin on a node whose mlx5_1 has no RDMA driver, registered with the stand-in. */
  private void start(String config) throws Exception {
    node(TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1"));
    TopologySource source = TopologySources.create(DiscoveryOptions.sysfs("n1", sysfs));
    plugin =
        new DevicePlugin(
            vertx, RescanWiring.of(source, ResourceConfig.parse(config, "t"), dir, sysfs, kubelet));
    plugin.start().await();
  }

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
