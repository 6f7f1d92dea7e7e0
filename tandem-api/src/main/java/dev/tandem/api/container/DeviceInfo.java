package dev.tandem.api.container;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.PciAddress;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * One device's Device Information file, as the NPWG Device Information Specification 1.1.0 names
 * and fills it: {@code <resourceName>-<deviceID>-device.json} ({@code /} in either replaced by
 * {@code -}), holding {@code {"type":"pci","version":"1.1.0","pci":{"pci-address":…,
 * "rdma-device":…,"pf-pci-address":…}}}. {@code pf-pci-address} only for a VF; an HCA (or a slot of
 * one) is its own PCI device. The device plugin writes one per device Allocate grants, the DRA
 * driver one per VF Prepare grants: the same name and content, from here.
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

  /** The directory the specification names for device plugins' files. */
  public static final String SPEC_DIRECTORY = "/var/run/k8s.cni.cncf.io/devinfo/dp";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private static final String FILE_SUFFIX = "-device.json";

  /** The file's name for a device of a resource, as the specification gives it. */
  public static String fileName(String resourceName, String deviceId) {
    return resourceName.replace('/', '-') + "-" + deviceId.replace('/', '-') + FILE_SUFFIX;
  }

  /** Whether {@code name} can be a name {@link #fileName} made: one file, in the directory. */
  public static boolean isFileName(String name) {
    return name != null
        && !name.contains("/")
        && !name.startsWith(".")
        && name.endsWith(FILE_SUFFIX);
  }

  /**
   * The file for an HCA (or a VF) handed out under {@code deviceId} of {@code resourceName}; empty
   * when its PCI address is unknown (the specification requires one).
   */
  public static Optional<DeviceInfo> of(String resourceName, String deviceId, Device hca) {
    PciAddress address = hca.address();
    if (address == null) {
      return Optional.empty();
    }
    PciAddress pf = hca.hca().virtualFunction() ? hca.hca().physicalFunction() : null;
    return Optional.of(
        new DeviceInfo(fileName(resourceName, deviceId), address, hca.hca().ibDevice(), pf));
  }

  /** The file's content. */
  public String json() {
    ObjectNode root = JSON.createObjectNode().put("type", "pci").put("version", VERSION);
    ObjectNode pci = root.putObject("pci").put("pci-address", pciAddress.toString());
    if (rdmaDevice != null) {
      pci.put("rdma-device", rdmaDevice);
    }
    if (pfPciAddress != null) {
      pci.put("pf-pci-address", pfPciAddress.toString());
    }
    try {
      return JSON.writeValueAsString(root) + "\n";
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
