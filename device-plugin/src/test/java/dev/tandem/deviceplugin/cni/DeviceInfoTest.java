package dev.tandem.deviceplugin.cni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import io.vertx.core.json.JsonObject;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Device Information file: the specification's name and fields, per mode")
class DeviceInfoTest {

  @Test
  @DisplayName("<resourceName>-<deviceID>-device.json, with / replaced by - in both")
  void fileName() {
    assertEquals(
        "rdma-hca-0000:4d:00.2-device.json", DeviceInfo.fileName("rdma/hca", "0000:4d:00.2"));
    assertEquals(
        "example.com-rdma-mlx5_0-slot-3-device.json",
        DeviceInfo.fileName("example.com/rdma", "mlx5_0-slot-3"));
  }

  @Test
  @DisplayName("sriov: type pci, version 1.1.0, the VF's address, its PF's and its RDMA device")
  void virtualFunction() {
    Inventory inv =
        Inventory.of(
            TestMachines.vmWithVf("n1"), ResourceConfig.parse("{\"mode\":\"sriov\"}", "t"));
    DeviceInfo info = info(inv, "0000:0b:00.2").orElseThrow();
    JsonObject json = new JsonObject(info.json());
    assertEquals(json.encodePrettily() + "\n", info.json(), "the text Vert.x wrote before");
    assertEquals("rdma-hca-0000:0b:00.2-device.json", info.fileName());
    assertEquals("pci", json.getString("type"));
    assertEquals("1.1.0", json.getString("version"));
    JsonObject pci = json.getJsonObject("pci");
    assertEquals("0000:0b:00.2", pci.getString("pci-address"));
    assertEquals("0000:0b:00.0", pci.getString("pf-pci-address"));
    assertEquals("mlx5_4", pci.getString("rdma-device"));
    assertEquals(3, pci.size());
  }

  @Test
  @DisplayName("hca and shared: the HCA's own address, no pf-pci-address; one file per slot id")
  void physicalFunction() {
    Inventory hca = Inventory.of(TestMachines.twoSockets("n1"), ResourceConfig.DEFAULT);
    JsonObject pci = new JsonObject(info(hca, "mlx5_1").orElseThrow().json()).getJsonObject("pci");
    assertEquals(
        hca.device("mlx5_1").orElseThrow().hca().address().toString(),
        pci.getString("pci-address"));
    assertEquals("mlx5_1", pci.getString("rdma-device"));
    assertFalse(pci.containsKey("pf-pci-address"));

    Inventory shared =
        Inventory.of(
            TestMachines.twoSockets("n1"),
            ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":2}", "t"));
    DeviceInfo slot0 = info(shared, "mlx5_0-slot-0").orElseThrow();
    DeviceInfo slot1 = info(shared, "mlx5_0-slot-1").orElseThrow();
    assertEquals("rdma-hca-mlx5_0-slot-1-device.json", slot1.fileName());
    assertEquals(slot0.pciAddress(), slot1.pciAddress());
  }

  /** The file of device {@code id} of the plugin's inventory, as the hand-off makes it. */
  static Optional<DeviceInfo> info(Inventory inventory, String id) {
    PluginDevice d = inventory.device(id).orElseThrow();
    return DeviceInfo.of("rdma/hca", d.id(), d.hca());
  }

  @Test
  @DisplayName("a device without a known PCI address gets no file (pci-address is required)")
  void noAddress() {
    Inventory inv = Inventory.of(TestMachines.twoSockets("n1"), ResourceConfig.DEFAULT);
    Device h = inv.device("mlx5_0").orElseThrow().hca();
    Device hidden = h.toBuilder().address(null).build();
    assertTrue(DeviceInfo.of("rdma/hca", "mlx5_0", hidden).isEmpty());
  }
}
