package dev.tandem.deviceplugin.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One device, one name, across the three components: a node's sysfs tree as the kernel lays it out
 * (a PF with {@code virtfnN} links, VFs with {@code physfn}, one VF without its RDMA driver) is
 * discovered as on a node; the plugin's ids (what the kubelet will report) are read back by the
 * agent's counting and by the extender, on the tree the extender gets from the NodeTopology.
 */
@DisplayName("the plugin's ids read back, through the one mapping, as the devices that back them")
class KubeletIdsTest {

  private static final ResourceNames R = ResourceNames.DEFAULT;

  @TempDir Path root;
  private Machine discovered;
  private Machine published;

  @BeforeEach
  void node() throws Exception {
    Machine node =
        TestMachines.withVirtualFunctions(
            TestMachines.machine("n1", new Switch(0, 2, 1), new Switch(1, 2, 1)),
            "mlx5_0",
            "mlx5_2",
            "mlx5_3",
            null);
    FakeSysfs.write(root, node);
    discovered = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root)).machine();
    published = NodeTopologyMapper.toMachine(NodeTopologyMapper.toResource(discovered));
  }

  @Test
  @DisplayName("the kernel's tree: physfn and virtfnN links; discovery finds the VFs with their PF")
  void kernelTree() throws Exception {
    Path pf = root.resolve("sys/bus/pci/devices/0000:15:00.0");
    assertEquals(
        root.resolve("sys/bus/pci/devices/0000:15:00.1").toRealPath(),
        pf.resolve("virtfn0").toRealPath());
    assertTrue(Files.isSymbolicLink(root.resolve("sys/bus/pci/devices/0000:15:00.3/physfn")));
    List<Device> vfs = discovered.hcas().stream().filter(h -> h.hca().virtualFunction()).toList();
    assertEquals(3, vfs.size());
    vfs.forEach(vf -> assertEquals(PciAddress.parse("0000:15:00.0"), vf.hca().physicalFunction()));
  }

  @Test
  @DisplayName(
      "sriov: VFs by PCI address, each read back as its VF; the PF has no units, the driverless VF"
          + " is not offered")
  void sriov() {
    Inventory inventory =
        Inventory.of(discovered, ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"));
    List<String> ids = inventory.devices().stream().map(PluginDevice::id).toList();
    assertEquals(List.of("0000:15:00.1", "0000:15:00.2"), ids);
    assertReadBack(inventory);
    DeviceUnits units = counted(ids);
    assertEquals(0, units.units(published.device("mlx5_0").orElseThrow(), 1));
    assertEquals(1, units.units(published.device("mlx5_2").orElseThrow(), 1));
    assertEquals(0, units.units(published.device("0000:15:00.3").orElseThrow(), 1));
  }

  @Test
  @DisplayName("shared: every slot reads back as its PF; units are the slots per HCA")
  void shared() {
    Inventory inventory =
        Inventory.of(
            discovered, ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":3}", "t"));
    assertReadBack(inventory);
    List<String> ids = inventory.devices().stream().map(PluginDevice::id).toList();
    DeviceUnits units = counted(ids);
    assertEquals(3, units.units(published.device("mlx5_0").orElseThrow(), 1));
    assertEquals(3, units.units(published.device("mlx5_1").orElseThrow(), 1));
    assertEquals(0, units.units(published.device("mlx5_2").orElseThrow(), 1), "a VF: no slots");
  }

  @Test
  @DisplayName("hca: ibverbs names of the PFs, the same strings as the published device ids")
  void wholeHcas() {
    Inventory inventory = Inventory.of(discovered, ResourceConfig.DEFAULT);
    List<String> ids = inventory.devices().stream().map(PluginDevice::id).toList();
    assertEquals(List.of("mlx5_0", "mlx5_1"), ids);
    ids.forEach(id -> assertTrue(published.device(id).isPresent(), id));
    assertReadBack(inventory);
  }

  /** Every plugin id stands, on the published tree, for the device the plugin backs it with. */
  private void assertReadBack(Inventory inventory) {
    DeviceIds onExtender = DeviceIds.of(published);
    for (PluginDevice d : inventory.devices()) {
      assertEquals(d.hca().id(), onExtender.treeId(d.id()).orElseThrow(), d.id());
    }
  }

  private DeviceUnits counted(List<String> ids) {
    DeviceUnits.Count c = DeviceUnits.count(published, R, Map.of(R.hca(), ids));
    assertEquals(List.of(), c.unplaced());
    return c.units();
  }
}
