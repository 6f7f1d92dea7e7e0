package dev.tandem.api.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.MigEntry;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MigLayoutTest {

  private static final String MIG_A = "MIG-6a1e35b3-1c2d-5e0f-9a8b-7c6d5e4f3a21";
  private static final String MIG_B = "MIG-0d4c2b1a-9f8e-5d7c-8b6a-5f4e3d2c1b0a";
  private static final String MIG_C = "MIG-f1e2d3c4-b5a6-5978-8695-a4b3c2d1e0f9";

  private final Machine node = TestMachines.machine("n1", new Switch(0, 2, 1), new Switch(1, 2, 1));
  private final Device gpu0 = node.gpus().get(0);
  private final Device gpu1 = node.gpus().get(1);
  private final MigLayout layout =
      MigLayout.of(
          List.of(
              new MigEntry(gpu0.id(), List.of(MIG_A, MIG_B)),
              new MigEntry(gpu1.id(), List.of(MIG_C))));

  @Test
  void aCurrentFormMigIdStandsForItsGpuThroughTheLayout() {
    DeviceIds ids = DeviceIds.of(node, layout);
    assertEquals(Optional.of(gpu0), ids.device(MIG_A));
    assertEquals(Optional.of(gpu0), ids.device(MIG_B));
    assertEquals(Optional.of(gpu1), ids.device(MIG_C));
    assertEquals(Optional.of(gpu1), ids.device(MIG_C + "::3"), "a time-sliced MIG device");
    assertEquals(Optional.empty(), DeviceIds.of(node).device(MIG_A), "no layout, no GPU");
    assertEquals(
        Optional.empty(), ids.device("MIG-00000000-0000-0000-0000-000000000000"), "unknown");
  }

  @Test
  void anOlderFormMigIdNamesItsGpuWithoutALayout() {
    DeviceIds ids = DeviceIds.of(node);
    assertEquals(Optional.of(gpu0), ids.device("MIG-" + gpu0.id() + "/7/0"));
    assertEquals(Optional.of(gpu1), ids.device("MIG-" + gpu1.id() + "/13/1::2"));
    for (String bad :
        List.of(
            "MIG-" + gpu0.id(),
            "MIG-" + gpu0.id() + "/7",
            "MIG-" + gpu0.id() + "/7/x",
            "MIG-" + gpu0.id() + "/7/0/1",
            "MIG-GPU-/1/0",
            "MIG-GPU-unknown/1/0")) {
      assertEquals(Optional.empty(), ids.device(bad), bad);
    }
  }

  @Test
  void theLayoutReadsBackFromItsPublishedEntries() {
    assertEquals(layout, MigLayout.of(layout.entries()));
    assertEquals(
        List.of(
            new MigEntry(gpu0.id(), List.of(MIG_A, MIG_B)),
            new MigEntry(gpu1.id(), List.of(MIG_C))),
        layout.entries());
    assertTrue(MigLayout.of(List.of()).isEmpty());
    assertTrue(MigLayout.of(null).isEmpty());
    assertTrue(MigLayout.of(List.of(new MigEntry(null, List.of(MIG_A)))).isEmpty());
  }
}
