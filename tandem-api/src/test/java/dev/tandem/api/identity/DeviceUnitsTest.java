package dev.tandem.api.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.UnitEntry;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceUnitsTest {

  private static final ResourceNames R = ResourceNames.DEFAULT;
  private final Machine node = TestMachines.machine("n1", new Switch(0, 2, 1), new Switch(1, 2, 1));
  private final Device gpu0 = node.gpus().get(0);
  private final Device mlx50 = node.device("mlx5_0").orElseThrow();
  private final Device mlx51 = node.device("mlx5_1").orElseThrow();

  @Test
  void sharedSlotsAndTimeSlicedReplicasCountPerDevice() {
    List<String> slots = new ArrayList<>();
    for (int s = 0; s < 3; s++) {
      slots.add(DeviceIds.slot(mlx50, s));
    }
    List<String> gpus = new ArrayList<>();
    for (Device g : node.gpus()) {
      for (int r = 0; r < 4; r++) {
        gpus.add(g.id() + "::" + r);
      }
    }
    DeviceUnits.Count c =
        DeviceUnits.count(node, R, Map.of(R.hca(), slots, R.gpu(), gpus, "other/x", List.of("a")));
    assertEquals(List.of(), c.unplaced());
    DeviceUnits u = c.units();
    assertEquals(3, u.units(mlx50, 1));
    assertEquals(0, u.units(mlx51, 1), "an HCA the plugin does not offer has no units");
    assertEquals(4, u.units(gpu0, 1));
  }

  @Test
  void aResourceWithAnIdOutsideTheTreeIsNotCounted() {
    DeviceUnits.Count c =
        DeviceUnits.count(
            node,
            R,
            Map.of(
                R.gpu(), List.of(gpu0.id(), "MIG-0c5a1c1e-0000-0000-0000-000000000000"),
                R.hca(), List.of("mlx5_0", "mlx5_1")));
    assertEquals(List.of("nvidia.com/gpu MIG-0c5a1c1e-0000-0000-0000-000000000000"), c.unplaced());
    assertFalse(c.units().counted(DeviceKind.GPU));
    assertTrue(c.units().counted(DeviceKind.HCA));
    assertEquals(1, c.units().units(gpu0, 7), "from the tree: 1 per GPU");
    assertEquals(1, c.units().units(mlx51, 7));
  }

  @Test
  void anIdOfTheOtherKindDoesNotCountForAResource() {
    DeviceUnits.Count c = DeviceUnits.count(node, R, Map.of(R.gpu(), List.of("mlx5_0")));
    assertEquals(List.of("nvidia.com/gpu mlx5_0"), c.unplaced());
    assertFalse(c.units().counted(DeviceKind.GPU));
  }

  @Test
  void uncountedResourcesComeFromTheTree() {
    DeviceUnits u = DeviceUnits.count(node, R, Map.of()).units();
    assertEquals(DeviceUnits.UNCOUNTED, u);
    assertEquals(1, u.units(gpu0, 8));
    assertEquals(8, u.units(mlx50, 8));
  }

  @Test
  void statusEntriesRoundTrip() {
    DeviceUnits u =
        DeviceUnits.count(node, R, Map.of(R.hca(), List.of("mlx5_1-slot-0", "mlx5_1-slot-1")))
            .units();
    List<UnitEntry> entries = u.entries(R);
    assertEquals(List.of(new UnitEntry("rdma/hca", "mlx5_1", 2)), entries);
    assertEquals(u, DeviceUnits.of(entries, R));
    assertEquals(DeviceUnits.UNCOUNTED, DeviceUnits.of(List.of(), R));
    assertEquals(
        DeviceUnits.UNCOUNTED,
        DeviceUnits.of(List.of(new UnitEntry("example.com/fpga", "x", 1)), R));
  }

  @Test
  void sriovVfsCountAndTheirPfHasNone() {
    Machine vm = TestMachines.vmWithVf("vm");
    Device vf = vm.hcas().get(0);
    DeviceUnits u =
        DeviceUnits.count(vm, R, Map.of(R.hca(), List.of(DeviceIds.virtualFunction(vf)))).units();
    assertEquals(1, u.units(vf, 5));
  }
}
