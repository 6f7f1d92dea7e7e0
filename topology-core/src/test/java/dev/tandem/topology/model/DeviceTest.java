package dev.tandem.topology.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DeviceTest {

  private static final PciAddress AT = PciAddress.parse("0000:3b:00.0");

  @Test
  @DisplayName("a built GPU has only what was set; the rest reads as a source that cannot see it")
  void gpuDefaults() {
    Device gpu = Device.gpu("GPU-0").parentId("pci:0000:3a:00.0").build();
    assertEquals(
        new Device(
            "GPU-0", DeviceKind.GPU, null, null, -1, "pci:0000:3a:00.0", -1, -1, null, true, null),
        gpu);
  }

  @Test
  @DisplayName("toBuilder keeps every value it is not told to change")
  void toBuilderKeeps() {
    HcaInfo info =
        new HcaInfo(
            "mlx5_4",
            "Ethernet",
            "DOWN",
            "100 Gb/sec",
            "b83f:d203:00a1:1b2c",
            List.of("eth4"),
            "uverbs4",
            true,
            PciAddress.parse("0000:3b:00.0"),
            PciAddress.parse("0008:03:00.0"),
            3);
    Device hca =
        new Device(
            "mlx5_4",
            DeviceKind.HCA,
            "mlx5_4",
            PciAddress.parse("0000:3b:00.2"),
            1,
            "pci:0000:3a:00.0",
            0x15b3,
            0x101e,
            "ConnectX-7 VF",
            false,
            info);
    assertEquals(hca, hca.toBuilder().build());
    assertEquals(info, info.toBuilder().build());
    Device moved = hca.toBuilder().address(AT).build();
    assertEquals(AT, moved.address());
    assertEquals(hca, moved.toBuilder().address(hca.address()).build());
  }

  @Test
  @DisplayName("HCA attributes: unset is unknown, no netdevs, a PF; an HCA without them fails")
  void hcaAttributes() {
    HcaInfo driverless = HcaInfo.builder(null).netdevs(null).build();
    assertEquals(
        new HcaInfo(null, null, null, null, null, List.of(), null, false, null, null, null),
        driverless);
    assertTrue(driverless.portUsable(), "unknown port state does not make a device unhealthy");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Device.hca("mlx5_0", null).parentId("pci:0000:3a:00.0").build());
    assertEquals("HCA mlx5_0 has no HCA attributes", e.getMessage());
  }
}
