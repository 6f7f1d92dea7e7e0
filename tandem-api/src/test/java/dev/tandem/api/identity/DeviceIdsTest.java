package dev.tandem.api.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DeviceIdsTest {

  private final Machine node = TestMachines.machine("n1", new Switch(0, 2, 1), new Switch(1, 2, 1));
  private final DeviceIds ids = DeviceIds.of(node);

  @Test
  void everyIdThePluginOffersForAnHcaReadsBackAsThatHca() {
    for (Device hca : node.hcas()) {
      assertEquals(Optional.of(hca), ids.device(DeviceIds.wholeHca(hca)));
      for (int n : List.of(0, 7, 999)) {
        assertEquals(Optional.of(hca), ids.device(DeviceIds.slot(hca, n)), "slot " + n);
      }
    }
  }

  @Test
  void aSlotIdNamesItsHcaByIbverbsName() {
    assertEquals("mlx5_1-slot-12", DeviceIds.slot(node.device("mlx5_1").orElseThrow(), 12));
    assertEquals(Optional.of("mlx5_1"), ids.treeId("mlx5_1-slot-12"));
  }

  @Test
  void aVfIsNamedByItsPciAddressAndReadsBackAsTheVf() {
    Machine vm = TestMachines.vmWithVf("vm");
    Device vf = vm.hcas().get(0);
    assertEquals("0000:0b:00.2", DeviceIds.virtualFunction(vf));
    assertEquals(Optional.of(vf), DeviceIds.of(vm).device("0000:0b:00.2"));
    // discovery may name the VF by its ibverbs name; the kubelet's PCI address still finds it
    Machine byName =
        new Machine(
            vm.nodeName(), vm.source(), vm.pcie(), List.of(vm.gpus().get(0), vf.withId("mlx5_4")));
    assertEquals(Optional.of("mlx5_4"), DeviceIds.of(byName).treeId("0000:0b:00.2"));
  }

  @Test
  void aPhysicalFunctionHasNoVfId() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DeviceIds.virtualFunction(node.device("mlx5_0").orElseThrow()));
    assertTrue(e.getMessage().contains("mlx5_0 is not an SR-IOV VF"), e.getMessage());
  }

  @Test
  void gpusReadBackByUuidReplicaAndBusId() {
    Device gpu = node.gpus().get(1);
    assertEquals(Optional.of(gpu), ids.device(gpu.id()));
    assertEquals(Optional.of(gpu), ids.device(gpu.id() + "::0"));
    assertEquals(Optional.of(gpu), ids.device(gpu.id() + "::15"));
    assertEquals(Optional.of(gpu), ids.device(gpu.address().toString()));
  }

  @Test
  void idsThatStandForNoDeviceReadBackAsNothing() {
    for (String id :
        List.of(
            "",
            "mlx5_9",
            "mlx5_9-slot-1",
            "mlx5_0-slot-",
            "mlx5_0-slot-x",
            "GPU-n1-0::",
            "GPU-n1-0::a",
            "mlx5_0::1",
            "MIG-4f2e1b7c-0000-0000-0000-000000000000",
            "0000:ff:1f.7",
            "zz:zz.z")) {
      assertEquals(Optional.empty(), ids.device(id), id);
    }
    assertEquals(Optional.empty(), ids.device(null));
  }

  @Test
  void anHcaWithoutIbverbsNameHasNoKubeletId() {
    Machine driverless = TestMachines.withoutRdmaDriver(node, "mlx5_1");
    Device hca =
        driverless.hcas().stream()
            .filter(h -> h.hca().ibDevice() == null)
            .findFirst()
            .orElseThrow();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DeviceIds.wholeHca(hca));
    assertTrue(e.getMessage().contains("RDMA driver is not loaded"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> DeviceIds.slot(hca, 0));
  }

  @Test
  void everyDeviceOfTheGoldenMachinesReadsBackFromItsOwnIdAndAddress() {
    for (Machine m : TestMachines.golden()) {
      DeviceIds golden = DeviceIds.of(m);
      for (Device d : m.devices()) {
        assertEquals(Optional.of(d), golden.device(d.id()), m.nodeName() + " " + d.id());
        if (d.address() != null) {
          assertEquals(Optional.of(d), golden.device(d.address().toString()), d.id());
        }
      }
    }
  }
}
