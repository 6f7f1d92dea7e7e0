package dev.tandem.api.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.MigEntry;
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

  @Test
  void aGpuOfferedAsMigDevicesUnderTheGpuResourceCountsOneUnitPerMigDevice() {
    List<String> migs = new ArrayList<>();
    List<MigEntry> layout = new ArrayList<>();
    for (Device g : node.gpus()) {
      List<String> of = new ArrayList<>();
      for (int i = 0; i < 7; i++) {
        of.add(String.format("MIG-%08x-0000-4000-8000-%012d", g.id().hashCode(), i));
      }
      migs.addAll(of);
      layout.add(new MigEntry(g.id(), of));
    }
    MigLayout mig = MigLayout.of(layout);
    DeviceUnits.Count c = DeviceUnits.count(node, mig, R, Map.of(R.gpu(), migs));
    assertEquals(List.of(), c.unplaced());
    assertEquals(7, c.units().units(gpu0, 1));
    assertEquals(c.units(), DeviceUnits.of(c.units().entries(R), R), "as published");
    DeviceUnits.Count without = DeviceUnits.count(node, R, Map.of(R.gpu(), migs));
    assertFalse(without.units().counted(DeviceKind.GPU), "no layout: the ids stand for nothing");
    assertEquals(migs.size(), without.unplaced().size());
  }

  @Test
  void mixedStrategyCountsOnlyWholeGpusUnderTheGpuResource() {
    Device gpu1 = node.gpus().get(1);
    MigLayout mig =
        MigLayout.of(List.of(new MigEntry(gpu0.id(), List.of("MIG-a", "MIG-b", "MIG-c"))));
    // NVIDIA's plugin, mig-strategy mixed: MIG devices under nvidia.com/mig-<profile>, whole GPUs
    // under nvidia.com/gpu; a MIG-enabled GPU is not offered under nvidia.com/gpu at all.
    DeviceUnits u =
        DeviceUnits.count(
                node,
                mig,
                R,
                Map.of(
                    R.gpu(),
                    List.of(gpu1.id()),
                    "nvidia.com/mig-1g.5gb",
                    List.of("MIG-a", "MIG-b")))
            .units();
    assertEquals(0, u.units(gpu0, 1));
    assertEquals(1, u.units(gpu1, 1));

    DeviceUnits allPartitioned =
        DeviceUnits.count(node, mig, R, Map.of("nvidia.com/mig-1g.5gb", List.of("MIG-a"))).units();
    assertTrue(allPartitioned.counted(DeviceKind.GPU), "the kubelet grants no nvidia.com/gpu");
    for (Device g : node.gpus()) {
      assertEquals(0, allPartitioned.units(g, 1), g.id());
    }
    assertEquals(allPartitioned, DeviceUnits.of(allPartitioned.entries(R), R), "as published");
    assertFalse(
        DeviceUnits.count(node, R, Map.of()).units().counted(DeviceKind.GPU),
        "no MIG and nothing offered: the tree decides");
  }
}
