package dev.tandem.agent.audit;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.kubelet.podresources.ClaimDevice;
import dev.tandem.topology.model.Device;
import java.util.Map;
import java.util.Optional;

/**
 * Which device of the node's tree a DRA device stands for. Tandem's driver publishes the node's
 * devices in the pool named after the node, under the names of the one identity mapping ({@link
 * DeviceIds#draDevice}); another driver's device (NVIDIA's {@code gpu.nvidia.com} GPUs beside
 * Tandem's HCAs) is read through the {@code resource.kubernetes.io/pciBusID} attribute its
 * ResourceSlice gives it, as the PCI address of a device of the tree. Pure.
 *
 * @param driver Tandem's DRA driver name (the driver's {@code --driver-name})
 * @param pool Tandem's pool on this node: the node's name
 * @param ids the node's identity mapping
 * @param pciBusIds other drivers' devices on this node, {@link #key} to their PCI address
 */
public record ClaimDeviceMapping(
    String driver, String pool, DeviceIds ids, Map<String, String> pciBusIds) {

  public ClaimDeviceMapping {
    pciBusIds = Map.copyOf(pciBusIds);
  }

  /** {@code driver/pool/device}: a DRA device's name, unique in the cluster. */
  public static String key(String driver, String pool, String device) {
    return driver + "/" + pool + "/" + device;
  }

  /** The device's {@link #key}. */
  public static String key(ClaimDevice d) {
    return key(d.driver(), d.pool(), d.device());
  }

  /** Whether Tandem's driver published the device. */
  public boolean isTandems(ClaimDevice d) {
    return driver.equals(d.driver());
  }

  /** The device of the tree the DRA device stands for; empty when it stands for none. */
  public Optional<Device> device(ClaimDevice d) {
    if (isTandems(d)) {
      return pool.equals(d.pool()) ? ids.draDevice(d.device()) : Optional.empty();
    }
    String address = pciBusIds.get(key(d));
    return address == null ? Optional.empty() : ids.device(address);
  }
}
