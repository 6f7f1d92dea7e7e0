package dev.tandem.deviceplugin.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("devices per mode, selectors, and plan HCA ids mapped to device ids")
class InventoryTest {

  static List<String> ids(Inventory i) {
    return i.devices().stream().map(PluginDevice::id).toList();
  }

  @TempDir Path root;

  /**
   * One switch: a GPU, PF mlx5_0 (InfiniBand, {@code ib0}) with two VFs at 0000:14:00.2 and
   * 0000:14:00.3 (ibverbs names mlx5_2, mlx5_3), and PF mlx5_1 (Ethernet, {@code eth1}), written as
   * the kernel lays it out and read back by sysfs discovery: every id below is the one discovery
   * gives, as on a node.
   */
  private Machine withVfs() throws IOException {
    FakeSysfs.write(
        root, TestMachines.withVirtualFunctions(pfs(), "mlx5_0", 2, "mlx5_2", "mlx5_3"));
    return TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();
  }

  /** The machine before its VFs are created. */
  private static Machine pfs() {
    TopologyBuilder b = new TopologyBuilder("n1", "test");
    b.cpuDomain("cpu0", List.of(0)).hostBridge("hb0", "cpu0");
    PciAddress rp = new PciAddress(0, 0x10, 0, 0);
    PciAddress up = new PciAddress(0, 0x11, 0, 0);
    PciAddress down = new PciAddress(0, 0x12, 0, 0);
    b.bridge(rp, "hb0", 0x8086, 1)
        .bridge(up, TopologyBuilder.bridgeId(rp), 0x1000, 2)
        .bridge(down, TopologyBuilder.bridgeId(up), 0x1000, 2);
    String parent = TopologyBuilder.bridgeId(down);
    b.device(
        Device.gpu("GPU-0")
            .name("cuda0")
            .address(new PciAddress(0, 0x13, 0, 0))
            .numaNode(0)
            .parentId(parent)
            .vendorId(0x10de)
            .deviceId(1)
            .build());
    b.device(pf("mlx5_0", new PciAddress(0, 0x14, 0, 0), parent, "InfiniBand", "ib0"));
    b.device(pf("mlx5_1", new PciAddress(0, 0x15, 0, 0), parent, "Ethernet", "eth1"));
    return b.build();
  }

  private static Device pf(String ib, PciAddress a, String parent, String link, String netdev) {
    HcaInfo info =
        HcaInfo.builder(ib).linkLayer(link).portState("ACTIVE").netdevs(List.of(netdev)).build();
    return Device.hca(ib, info)
        .name(ib)
        .address(a)
        .numaNode(0)
        .parentId(parent)
        .vendorId(0x15b3)
        .deviceId(0x101b)
        .build();
  }

  @Test
  @DisplayName("hca: one device per physical HCA, id = ibverbs name")
  void hcaMode() throws IOException {
    Inventory i = Inventory.of(withVfs(), ResourceConfig.DEFAULT);
    assertEquals(List.of("mlx5_0", "mlx5_1"), ids(i));
    assertEquals(List.of("mlx5_0"), i.idsFor("mlx5_0"));
  }

  @Test
  @DisplayName("sriov: one device per VF, id = VF PCI address; a plan's PF stands for its VFs")
  void sriovMode() throws IOException {
    Machine m = withVfs();
    assertEquals(
        Set.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"),
        m.hcas().stream().map(Device::id).collect(Collectors.toSet()),
        "discovery names VFs by ibverbs name, as the agent publishes them");
    Inventory i = Inventory.of(m, ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"));
    assertEquals(List.of("0000:14:00.2", "0000:14:00.3"), ids(i));
    assertEquals(List.of("0000:14:00.2", "0000:14:00.3"), i.idsFor("mlx5_0"));
    assertEquals(List.of("0000:14:00.3"), i.idsFor("mlx5_3"));
    assertEquals(List.of("0000:14:00.3"), i.idsFor("0000:14:00.3"));
    assertEquals(List.of(), i.idsFor("mlx5_1"));
  }

  @Test
  @DisplayName("shared: N slots per HCA, ids <ibdev>-slot-<n>")
  void sharedMode() {
    Inventory i =
        Inventory.of(
            TestMachines.twoSockets("n1"),
            ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":3}", "t"));
    assertEquals(
        List.of(
            "mlx5_0-slot-0",
            "mlx5_0-slot-1",
            "mlx5_0-slot-2",
            "mlx5_1-slot-0",
            "mlx5_1-slot-1",
            "mlx5_1-slot-2"),
        ids(i));
    assertEquals(3, i.idsFor("mlx5_1").size());
  }

  @Test
  @DisplayName("selectors: link layer, netdev, vendor/device ids and ibverbs names")
  void selectors() throws IOException {
    Machine m = withVfs();
    assertEquals(
        List.of("mlx5_1"),
        ids(
            Inventory.of(
                m, ResourceConfig.parse("{\"selectors\":{\"linkLayers\":[\"Ethernet\"]}}", "t"))));
    assertEquals(
        List.of("mlx5_0"),
        ids(Inventory.of(m, ResourceConfig.parse("{\"selectors\":{\"netdevs\":[\"ib0\"]}}", "t"))));
    assertEquals(
        List.of("mlx5_0", "mlx5_1"),
        ids(
            Inventory.of(
                m,
                ResourceConfig.parse(
                    "{\"selectors\":{\"vendorIds\":[\"15b3\"],\"deviceIds\":[\"0x101b\"]}}",
                    "t"))));
    assertEquals(
        List.of("0000:14:00.2", "0000:14:00.3"),
        ids(
            Inventory.of(
                m,
                ResourceConfig.parse(
                    "{\"mode\":\"sriov\",\"selectors\":{\"deviceIds\":[\"101c\"]}}", "t"))));
    assertEquals(
        List.of(),
        ids(
            Inventory.of(
                m, ResourceConfig.parse("{\"selectors\":{\"ibDevices\":[\"mlx5_9\"]}}", "t"))));
  }

  @Test
  @DisplayName(
      "sriov with k8s-rdma-sriov-dev-plugin's pfNetdevices: the VFs of the PF with that interface")
  void pfNetdevices() throws IOException {
    Machine m = withVfs();
    String mellanox = "{\"mode\":\"sriov\",\"pfNetdevices\":[\"ib0\"]}";
    assertEquals(
        List.of("0000:14:00.2", "0000:14:00.3"),
        ids(Inventory.of(m, ResourceConfig.parse(mellanox, "t"))));
    assertEquals(
        List.of(),
        ids(
            Inventory.of(
                m, ResourceConfig.parse("{\"mode\":\"sriov\",\"pfNetdevices\":[\"eth1\"]}", "t"))),
        "mlx5_1 (eth1) has no VFs");
  }
}
