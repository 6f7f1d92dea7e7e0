package dev.tandem.deviceplugin.cni;

import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.topology.model.PciAddress;
import io.vertx.core.json.JsonObject;
import java.util.Optional;

/**
 * One device's Device Information file, as the NPWG Device Information Specification 1.1.0 names
 * and fills it: {@code <resourceName>-<deviceID>-device.json} ({@code /} in either replaced by
 * {@code -}), holding {@code {"type":"pci","version":"1.1.0","pci":{"pci-address":…,
 * "rdma-device":…,"pf-pci-address":…}}}. {@code pf-pci-address} only for a VF ({@code sriov} mode);
 * an HCA ({@code hca} mode) or a slot of one ({@code shared}) is its own PCI device.
 *
 * @param fileName the file's name in the directory
 * @param pciAddress the device's PCI address, {@code dddd:bb:dd.f}
 * @param rdmaDevice its ibverbs name, e.g. {@code mlx5_3}
 * @param pfPciAddress the PCI address of a VF's PF; null for a PF
 */
public record DeviceInfo(
    String fileName, PciAddress pciAddress, String rdmaDevice, PciAddress pfPciAddress) {

  /** The specification version written. */
  public static final String VERSION = "1.1.0";

  /** The file's name for a device of a resource, as the specification gives it. */
  public static String fileName(String resourceName, String deviceId) {
    return resourceName.replace('/', '-') + "-" + deviceId.replace('/', '-') + "-device.json";
  }

  /** The file for a device; empty when its PCI address is unknown (the spec requires one). */
  public static Optional<DeviceInfo> of(String resourceName, PluginDevice device) {
    PciAddress address = device.hca().address();
    if (address == null) {
      return Optional.empty();
    }
    PciAddress pf =
        device.hca().hca().virtualFunction() ? device.hca().hca().physicalFunction() : null;
    return Optional.of(
        new DeviceInfo(fileName(resourceName, device.id()), address, device.ibDevice(), pf));
  }

  /** The file's content. */
  public String json() {
    JsonObject pci = new JsonObject().put("pci-address", pciAddress.toString());
    if (rdmaDevice != null) {
      pci.put("rdma-device", rdmaDevice);
    }
    if (pfPciAddress != null) {
      pci.put("pf-pci-address", pfPciAddress.toString());
    }
    return new JsonObject()
            .put("type", "pci")
            .put("version", VERSION)
            .put("pci", pci)
            .encodePrettily()
        + "\n";
  }
}
