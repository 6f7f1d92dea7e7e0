package dev.tandem.api.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "DRA device names: DNS labels from the one device-identity mapping, read back, collisions")
class DraNamesTest {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  @Test
  @DisplayName("every device of real machines gets a DNS label that reads back as that device")
  void everyDeviceRoundTrips() {
    for (Machine m :
        List.of(
            RealMachines.dgxA100("n1"),
            TestMachines.twoSwitchesAndLoneHca("n1"),
            TestMachines.vmWithVf("n1"),
            TestMachines.gpusOnRootPorts("n1"),
            TestMachines.withoutRdmaDriver(TestMachines.twoSockets("n1"), "mlx5_1"))) {
      DeviceIds ids = DeviceIds.of(m);
      for (Device d : m.devices()) {
        String name = DeviceIds.draName(d);
        assertTrue(DNS_LABEL.matcher(name).matches(), name + " of " + d.id());
        assertEquals(Optional.of(d), ids.draDevice(name), name);
      }
      assertEquals(m.devices().size(), ids.draNames(m.devices()).size());
    }
  }

  @Test
  @DisplayName("GPUs by UUID, HCAs by ibverbs name, an HCA without driver by PCI address")
  void shapes() {
    Machine m = TestMachines.twoSwitchesAndLoneHca("n1");
    assertEquals("gpu-a0", DeviceIds.draName(m.device("GPU-a0").orElseThrow()));
    assertEquals("mlx5-1", DeviceIds.draName(m.device("mlx5_1").orElseThrow()));
    Machine roots = TestMachines.gpusOnRootPorts("n1");
    assertEquals(
        "gpu-11111111-2222-3333-4444-555555555555", DeviceIds.draName(roots.gpus().get(0)));
    Device busId = roots.gpus().get(0).withId("0000:3b:00.0");
    assertEquals("gpu-0000-3b-00-0", DeviceIds.draName(busId));
    Machine driverless = TestMachines.withoutRdmaDriver(TestMachines.twoSockets("n1"), "mlx5_1");
    Device unnamed =
        driverless.hcas().stream()
            .filter(d -> d.hca().ibDevice() == null)
            .findFirst()
            .orElseThrow();
    assertEquals(
        "hca-" + unnamed.address().toString().replace(':', '-').replace('.', '-'),
        DeviceIds.draName(unnamed));
    assertEquals(Optional.empty(), DeviceIds.of(m).draDevice("mlx5_1"));
    assertEquals(Optional.empty(), DeviceIds.of(m).draDevice(""));
  }

  @Test
  @DisplayName("two devices that normalise to one name fail, naming both and the fix")
  void collision() {
    Machine m = TestMachines.twoSwitchesAndLoneHca("n1");
    Device a = m.device("mlx5_1").orElseThrow();
    Device b =
        new Device(
            "MLX5-1",
            a.kind(),
            null,
            TestMachines.pci(0x22, 0),
            0,
            a.parentId(),
            a.vendorId(),
            a.deviceId(),
            a.model(),
            true,
            HcaInfo.named("MLX5-1"));
    List<Device> devices = new ArrayList<>(m.devices());
    devices.add(b);
    Machine clash = new Machine("n1", "test", m.pcie(), devices);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DeviceIds.of(clash).draNames(clash.devices()));
    assertTrue(e.getMessage().startsWith("devices "), e.getMessage());
    assertTrue(e.getMessage().contains("mlx5_1"), e.getMessage());
    assertTrue(e.getMessage().contains("MLX5-1"), e.getMessage());
    assertTrue(e.getMessage().contains("of node n1"), e.getMessage());
    assertTrue(e.getMessage().contains("'mlx5-1'"), e.getMessage());
    assertTrue(e.getMessage().contains("rename one of them"), e.getMessage());
  }

  @Test
  @DisplayName("a name longer than a DNS label fails, naming the device")
  void tooLong() {
    Device gpu = TestMachines.twoSockets("n1").gpus().get(0).withId("GPU-" + "a".repeat(60));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DeviceIds.draName(gpu));
    assertTrue(e.getMessage().startsWith("device GPU-aaaa"), e.getMessage());
    assertTrue(e.getMessage().contains("not a DNS label of 1 to 63"), e.getMessage());
  }
}
