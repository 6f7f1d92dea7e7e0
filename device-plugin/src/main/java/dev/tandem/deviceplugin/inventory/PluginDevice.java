package dev.tandem.deviceplugin.inventory;

import dev.tandem.topology.model.Device;

/**
 * One device the plugin offers to the kubelet.
 *
 * @param id the kubelet's id: an ibverbs name ({@code hca}), a VF PCI address ({@code sriov}) or
 *     {@code <ibdev>-slot-<n>} ({@code shared}); at most 63 characters
 * @param hca the HCA (or VF) in the node's topology that backs it
 */
public record PluginDevice(String id, Device hca) {

  public static final int MAX_ID_LENGTH = 63;

  public PluginDevice {
    if (id.length() > MAX_ID_LENGTH) {
      throw new IllegalArgumentException(
          "device id "
              + id
              + " is longer than "
              + MAX_ID_LENGTH
              + " characters, which the kubelet does not accept");
    }
  }

  /** The ibverbs name of the backing HCA, e.g. {@code mlx5_0}. */
  public String ibDevice() {
    return hca.hca().ibDevice();
  }

  public int numaNode() {
    return hca.numaNode();
  }
}
