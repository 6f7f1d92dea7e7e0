package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "an HCA without its RDMA driver is published unhealthy, with a note naming it and the fix")
class DriverlessHcasTest {

  private static final String DRIVERLESS = "0000:21:00.0";

  @Test
  @DisplayName(
      "sysfs tree with mlx5_1's driver unloaded: in the tree, unhealthy, one note; others healthy")
  void sysfsNode(@TempDir Path root) throws Exception {
    Machine node =
        TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1");
    FakeSysfs.write(root, node);

    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.sysfs("n1", root));

    Device hca = d.machine().device(DRIVERLESS).orElseThrow();
    assertNull(hca.hca().ibDevice());
    assertFalse(hca.healthy());
    assertTrue(d.machine().device("mlx5_0").orElseThrow().healthy());
    assertTrue(d.machine().device("mlx5_2").orElseThrow().healthy());
    List<String> notes = d.notes().stream().filter(n -> n.contains(DRIVERLESS)).toList();
    assertEquals(1, notes.size(), d.notes().toString());
    assertTrue(
        notes.get(0).contains("RDMA driver is not loaded")
            && notes.get(0).contains("Load the driver (mlx5_ib"),
        notes.get(0));
  }

  @Test
  @DisplayName(
      "a tree whose HCAs all have names is returned as it was; only sources that read this node"
          + " mark (not an hwloc export, nor an NCCL file read alone)")
  void othersUntouched(@TempDir Path root) {
    Discovery named = new Discovery(TestMachines.twoSwitchesAndLoneHca("n1"), "sysfs", List.of());
    assertSame(named, DriverlessHcas.marked(named));
    Machine driverless =
        TestMachines.withoutRdmaDriver(TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1");
    assertFalse(
        DriverlessHcas.marked(new Discovery(driverless, "hwloc", List.of()))
            .machine()
            .device(DRIVERLESS)
            .orElseThrow()
            .healthy());
    Path file = Topologies.path("nccl-topo/azure-ndv4-a100.xml");
    assertFalse(DiscoveryOptions.hwlocXml("n1", file).readsNode());
    assertFalse(DiscoveryOptions.ncclTopo("n1", file).readsNode());
    assertTrue(new DiscoveryOptions("n1", null, root, file, false).readsNode());
    assertTrue(DiscoveryOptions.sysfs("n1", root).readsNode());
    assertTrue(DiscoveryOptions.live("n1").readsNode());
  }
}
