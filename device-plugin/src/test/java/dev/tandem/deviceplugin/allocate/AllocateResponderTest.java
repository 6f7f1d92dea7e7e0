package dev.tandem.deviceplugin.allocate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.container.RdmaEnvironment;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DeviceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Allocate: character devices, environment, one response per container, errors")
class AllocateResponderTest {

  @TempDir Path sysfs;

  static AllocateResponder hcas(Inventory inventory, Map<String, String> uverbs) {
    return RdmaAnswer.responder(inventory, ib -> Optional.ofNullable(uverbs.get(ib)));
  }

  static AllocateRequest request(List<String>... containers) {
    AllocateRequest.Builder b = AllocateRequest.newBuilder();
    for (List<String> ids : containers) {
      b.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
    }
    return b.build();
  }

  @Test
  @DisplayName(
      "shared slots of one HCA give that HCA once; every container gets exactly one response")
  void sharedSlots() {
    Inventory inv =
        Inventory.of(
            TestMachines.twoSockets("n1"),
            ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":4}", "t"));
    var r =
        hcas(inv, Map.of("mlx5_0", "uverbs3", "mlx5_1", "uverbs7"))
            .allocate(
                request(
                    List.of("mlx5_0-slot-2", "mlx5_0-slot-1"),
                    List.of("mlx5_1-slot-0"),
                    List.of()));
    assertEquals(3, r.getContainerResponsesCount());
    ContainerAllocateResponse c = r.getContainerResponses(0);
    assertEquals(
        List.of("/dev/infiniband/uverbs3", "/dev/infiniband/rdma_cm"),
        c.getDevicesList().stream().map(DeviceSpec::getContainerPath).toList());
    assertEquals("=mlx5_0", c.getEnvsMap().get("NCCL_IB_HCA"));
    assertEquals("mlx5_0-slot-2,mlx5_0-slot-1", c.getEnvsMap().get("TANDEM_RDMA_DEVICE_IDS"));
    assertEquals("mlx5_1:1", r.getContainerResponses(1).getEnvsMap().get("UCX_NET_DEVICES"));
  }

  @Test
  @DisplayName(
      "uverbs found through /sys/class/infiniband_verbs/*/ibdev when the device link is missing")
  void ibdevFile() throws Exception {
    Path u = Files.createDirectories(sysfs.resolve("sys/class/infiniband_verbs/uverbs5"));
    Files.writeString(u.resolve("ibdev"), "mlx5_1\n");
    assertEquals("uverbs5", new UverbsLocator(sysfs).uverbs("mlx5_1").orElseThrow());
    assertTrue(new UverbsLocator(sysfs).uverbs("mlx5_0").isEmpty());
  }

  @Test
  @DisplayName(
      "a missing sysfs uverbs entry is an error naming the HCA, the node and what to check")
  void missingSysfs() {
    Inventory inv = Inventory.of(TestMachines.twoSockets("n1"), ResourceConfig.DEFAULT);
    AllocationException e =
        assertThrows(
            AllocationException.class,
            () ->
                hcas(inv, Map.of("mlx5_0", "uverbs0"))
                    .allocate(request(List.of("mlx5_0", "mlx5_1"))));
    assertTrue(
        e.getMessage().startsWith("no uverbs character device known for HCA mlx5_1 on node n1"),
        e.getMessage());
    assertTrue(e.getMessage().contains("ib_uverbs"), e.getMessage());
  }

  @Test
  @DisplayName(
      "PCIDEVICE_<RESOURCE>: the SR-IOV network device plugin's name, the devices' PCI addresses once each")
  void pciDeviceVariable() {
    assertEquals("PCIDEVICE_RDMA_HCA", RdmaEnvironment.pciDeviceVariable("rdma/hca"));
    assertEquals(
        "PCIDEVICE_INTEL_COM_SRIOV_NETDEVICE",
        RdmaEnvironment.pciDeviceVariable("intel.com/sriov_netdevice"));
    assertEquals(
        "PCIDEVICE_EXAMPLE_CORP_COM_RDMA_HCA",
        RdmaEnvironment.pciDeviceVariable("example-corp.com/rdma-hca"));

    Inventory vf =
        Inventory.of(
            TestMachines.vmWithVf("n1"), ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"));
    var env =
        hcas(vf, Map.of("mlx5_4", "uverbs4"))
            .allocate(request(List.of("0000:0b:00.2")))
            .getContainerResponses(0)
            .getEnvsMap();
    assertEquals("0000:0b:00.2", env.get("PCIDEVICE_RDMA_HCA"));

    Inventory shared =
        Inventory.of(
            TestMachines.twoSockets("n1"),
            ResourceConfig.parse(
                "{\"mode\":\"shared\",\"slotsPerHca\":4,\"resourceName\":\"rdma/shared_hca\"}",
                "t"));
    var slots =
        hcas(shared, Map.of("mlx5_0", "uverbs0", "mlx5_1", "uverbs1"))
            .allocate(request(List.of("mlx5_0-slot-1", "mlx5_0-slot-2", "mlx5_1-slot-0")))
            .getContainerResponses(0)
            .getEnvsMap();
    String pf0 = shared.device("mlx5_0-slot-0").orElseThrow().hca().address().toString();
    String pf1 = shared.device("mlx5_1-slot-0").orElseThrow().hca().address().toString();
    assertEquals(pf0 + "," + pf1, slots.get("PCIDEVICE_RDMA_SHARED_HCA"));
  }

  @Test
  @DisplayName(
      "unknown ids: the error names the first 8, each cut at 80 characters, and counts the rest")
  void manyUnknownIds() {
    Inventory inv = Inventory.of(TestMachines.twoSockets("n1"), ResourceConfig.DEFAULT);
    List<String> ids = new ArrayList<>();
    ids.add("x".repeat(100_000));
    for (int i = 0; i < 29_999; i++) {
      ids.add("mlx5_" + (100 + i));
    }
    String message =
        assertThrows(
                AllocationException.class,
                () -> hcas(inv, Map.of("mlx5_0", "uverbs3")).allocate(request(ids)))
            .getMessage();
    assertTrue(message.startsWith("unknown "), message);
    assertTrue(message.contains("x".repeat(80) + "… (100000 characters)"), message);
    assertTrue(message.contains("mlx5_106 and 29992 more on node n1"), message);
    assertTrue(message.length() < 1_000, message.length() + " characters");
  }
}
