package dev.tandem.deviceplugin.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.DeviceEntry;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.fixtures.NcclVm;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One device, one name, on VMs read from their NCCL topology file: for every NCCL fixture, the VM's
 * sysfs and NVIDIA procfs ({@link NcclVm}) are read as the agent and the plugin read them (both run
 * the same discovery with {@code --nccl-topo} and {@code --sysfs-root}); the plugin's ids, which
 * the kubelet will report, are the published NodeTopology's ids and read back through the one
 * mapping.
 */
@DisplayName("on a VM, the plugin offers each NIC under the id the agent publishes for it")
class NcclVmIdsTest {

  @TempDir Path root;

  /** The VM as its kernel names it: what the kubelet reports. */
  private Machine named;

  /**
   * Writes the VM's sysfs and procfs, with the last NIC's RDMA driver absent when {@code
   * driverless}, and discovers it as the agent and the plugin do.
   */
  private Machine discovered(NcclVm vm, boolean driverless) throws Exception {
    Machine fromFile =
        TopologySources.discoverOnce(DiscoveryOptions.ncclTopo("vm-1", vm.path())).machine();
    named = vm.named(fromFile);
    vm.write(root, driverless ? TestMachines.withoutRdmaDriver(named, nicOff().id()) : named);
    return TopologySources.discoverOnce(new DiscoveryOptions("vm-1", null, root, vm.path(), false))
        .machine();
  }

  /** The NIC whose RDMA driver the driverless case unloads. */
  private Device nicOff() {
    return named.hcas().get(named.hcas().size() - 1);
  }

  @ParameterizedTest
  @EnumSource(NcclVm.class)
  @DisplayName(
      "hca mode: the plugin's ids are the published NICs' ids (ibverbs names), each read back by"
          + " DeviceIds as the NIC the plugin backs it with, with its uverbs device; GPUs are"
          + " published by UUID")
  void sameIdsAsTheAgent(NcclVm vm) throws Exception {
    Machine discovered = discovered(vm, false);
    Machine published = NodeTopologyMapper.toMachine(NodeTopologyMapper.toResource(discovered));

    Inventory inventory = Inventory.of(discovered, ResourceConfig.DEFAULT);

    List<String> plugin = inventory.devices().stream().map(PluginDevice::id).toList();
    assertEquals(publishedHcaIds(discovered), plugin);
    assertEquals(named.hcas().stream().map(Device::id).toList(), plugin);
    DeviceIds onExtender = DeviceIds.of(published);
    UverbsLocator uverbs = new UverbsLocator(root);
    for (PluginDevice d : inventory.devices()) {
      Device nic = onExtender.device(d.id()).orElseThrow();
      assertEquals(d.hca().id(), nic.id(), d.id());
      assertEquals(d.id(), nic.hca().ibDevice(), d.id());
      String granted = named.device(d.id()).orElseThrow().hca().uverbs();
      assertEquals(granted, uverbs.uverbs(d.id()).orElseThrow(), d.id() + ": Allocate's uverbs");
    }
    for (Device gpu : published.gpus()) {
      assertEquals(vm.gpuUuid(gpu.address()), gpu.id());
    }
  }

  @ParameterizedTest
  @EnumSource(NcclVm.class)
  @DisplayName(
      "shared mode: every slot reads back through DeviceIds as its NIC, on the published tree")
  void sharedSlots(NcclVm vm) throws Exception {
    Machine discovered = discovered(vm, false);
    Machine published = NodeTopologyMapper.toMachine(NodeTopologyMapper.toResource(discovered));

    Inventory inventory =
        Inventory.of(
            discovered, ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":2}", "t"));

    assertEquals(2 * published.hcas().size(), inventory.devices().size());
    DeviceIds onExtender = DeviceIds.of(published);
    for (PluginDevice d : inventory.devices()) {
      assertEquals(d.hca().id(), onExtender.treeId(d.id()).orElseThrow(), d.id());
    }
  }

  @ParameterizedTest
  @EnumSource(NcclVm.class)
  @DisplayName(
      "a NIC whose RDMA driver is absent: the plugin skips it with one WARN naming its PCI address;"
          + " the agent publishes it unhealthy by its bus id; the others agree")
  void driverlessNicSkipped(NcclVm vm) throws Exception {
    Machine discovered = discovered(vm, true);
    Machine published = NodeTopologyMapper.toMachine(NodeTopologyMapper.toResource(discovered));
    String[] log = new String[1];

    Inventory inventory =
        DriverlessHcaTest.logged(() -> Inventory.of(discovered, ResourceConfig.DEFAULT), log);

    List<String> plugin = inventory.devices().stream().map(PluginDevice::id).toList();
    assertEquals(publishedHcaIds(discovered), plugin);
    Device off = nicOff();
    Device unnamed = DeviceIds.of(published).device(off.address().toString()).orElseThrow();
    assertEquals(off.address().toString(), unnamed.id());
    assertFalse(unnamed.healthy());
    assertFalse(plugin.contains(unnamed.id()));
    assertEquals(published.hcas().size() - 1, plugin.size());
    List<String> warnings =
        Arrays.stream(log[0].split("\n")).filter(l -> l.contains("WARN")).toList();
    assertEquals(1, warnings.size(), log[0]);
    assertTrue(
        warnings.get(0).contains("node vm-1: RDMA device at PCI " + off.address())
            && warnings.get(0).contains("has no ibverbs name"),
        warnings.get(0));
  }

  /** The ids of the HCAs the agent publishes healthy, in the published order. */
  private static List<String> publishedHcaIds(Machine discovered) {
    return NodeTopologyMapper.toSpec(discovered).devices().stream()
        .filter(e -> e.kind().equals(DeviceKind.HCA.name()) && e.healthy())
        .map(DeviceEntry::id)
        .toList();
  }
}
