package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.StandInWiring;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allocateAllDevices} on a node of Alibaba Cloud Elastic RDMA adapters (PCI vendor 1ded,
 * {@code erdma_0} … {@code erdma_2}) read from its sysfs tree, through Allocate on the plugin's
 * real socket: every container can open every eRDMA device, while what was granted (the ids, their
 * PCI addresses, their Device Information files) stays what the kubelet chose.
 */
@DisplayName("allocateAllDevices hands every container all eRDMA devices, records the granted ones")
@ExtendWith(VertxExtension.class)
class AllDevicesIT {

  @TempDir Path sysfs;
  @TempDir Path devinfo;
  Path dir;
  Vertx vertx;
  KubeletStandIn kubelet;
  DevicePlugin plugin;

  @BeforeEach
  void setUp(Vertx vertx, KubeletStandIn kubelet) throws Exception {
    this.vertx = vertx;
    this.kubelet = kubelet;
    dir = kubelet.dir();
    FakeSysfs.write(sysfs, TestMachines.withErdma(TestMachines.twoSwitchesAndLoneHca("n1")));
  }

  @AfterEach
  void tearDown() {
    if (plugin != null) {
      plugin.stop().await();
    }
  }

  @Test
  @DisplayName(
      "shared mode: slot erdma_2-slot-0 gets uverbs of erdma_2, erdma_0, erdma_1 and rdma_cm;"
          + " NCCL_IB_HCA names all three, the ids, PCIDEVICE and device-info files erdma_2's only")
  void sharedSlotGetsEveryDevice() throws Exception {
    start(
        "{\"mode\":\"shared\",\"slotsPerHca\":4,\"allocateAllDevices\":true,"
            + "\"selectors\":{\"vendorIds\":[\"1ded\"]}}");

    ContainerAllocateResponse c = allocate("erdma_2-slot-0");

    assertEquals(
        List.of(
            "/dev/infiniband/uverbs2",
            "/dev/infiniband/uverbs0",
            "/dev/infiniband/uverbs1",
            "/dev/infiniband/rdma_cm"),
        c.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
    Map<String, String> env = c.getEnvsMap();
    assertEquals("=erdma_2,erdma_0,erdma_1", env.get("NCCL_IB_HCA"));
    assertEquals("erdma_2:1,erdma_0:1,erdma_1:1", env.get("UCX_NET_DEVICES"));
    assertEquals("erdma_2", env.get("TANDEM_RDMA_DEVICES"));
    assertEquals("erdma_2-slot-0", env.get("TANDEM_RDMA_DEVICE_IDS"));
    assertEquals(address("erdma_2"), env.get("PCIDEVICE_RDMA_HCA"));
    assertEquals(List.of("rdma-hca-erdma_2-slot-0-device.json"), deviceInfoFiles());
  }

  @Test
  @DisplayName("hca mode: erdma_0 granted, the character devices of all three eRDMA devices handed")
  void hcaModeHandsEveryDevice() throws Exception {
    start("{\"mode\":\"hca\",\"allocateAllDevices\":true}");
    ContainerAllocateResponse c = allocate("erdma_0");
    assertEquals(
        List.of(
            "/dev/infiniband/uverbs0",
            "/dev/infiniband/uverbs1",
            "/dev/infiniband/uverbs2",
            "/dev/infiniband/rdma_cm"),
        c.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
    assertEquals("erdma_0", c.getEnvsMap().get("TANDEM_RDMA_DEVICE_IDS"));
  }

  @Test
  @DisplayName("hca mode without the key: erdma_0 granted, erdma_0's character device only")
  void withoutTheKeyOnlyTheGranted() throws Exception {
    start("{\"mode\":\"hca\"}");
    ContainerAllocateResponse c = allocate("erdma_0");
    assertEquals(
        List.of("/dev/infiniband/uverbs0", "/dev/infiniband/rdma_cm"),
        c.getDevicesList().stream().map(DeviceSpec::getHostPath).toList());
    assertEquals("=erdma_0", c.getEnvsMap().get("NCCL_IB_HCA"));
  }

  private void start(String config) throws InterruptedException {
    Machine m = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", sysfs)).machine();
    plugin =
        new DevicePlugin(
            vertx,
            StandInWiring.of(m, ResourceConfig.parse(config, "config.json"), dir, sysfs, kubelet)
                .deviceInfo(devinfo, Duration.ofSeconds(10))
                .build());
    plugin.start().await();
    assertNotNull(kubelet.nextList(5000), "no ListAndWatch list within 5 s");
  }

  private ContainerAllocateResponse allocate(String id) {
    return kubelet
        .allocate(
            AllocateRequest.newBuilder()
                .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds(id))
                .build())
        .getContainerResponses(0);
  }

  private String address(String ib) {
    return TestMachines.withErdma(TestMachines.twoSwitchesAndLoneHca("n1"))
        .device(ib)
        .orElseThrow()
        .address()
        .toString();
  }

  private List<String> deviceInfoFiles() throws Exception {
    try (Stream<Path> files = Files.list(devinfo)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
