package dev.tandem.topology.model;

import java.util.Objects;

/**
 * A GPU or an HCA, as the kubelet and the workload know it.
 *
 * @param id the id the kubelet uses: GPU UUID ({@code GPU-…}) or HCA name ({@code mlx5_0}) or VF
 *     PCI address; unique within the machine
 * @param kind GPU or HCA
 * @param name a human name from the discovery source ({@code cuda0}, {@code mlx5_0})
 * @param address PCI address; null when the source hides it (NCCL topology of a VM)
 * @param numaNode NUMA node, or -1 when unknown
 * @param parentId the PCIe node it hangs off, after on-card bridges are folded into the device
 * @param vendorId PCI vendor id, or -1
 * @param deviceId PCI device id, or -1
 * @param model marketing name, e.g. {@code NVIDIA H100 80GB HBM3}; null if unknown
 * @param healthy whether the device can be allocated
 * @param hca HCA attributes; null for a GPU
 */
public record Device(
    String id,
    DeviceKind kind,
    String name,
    PciAddress address,
    int numaNode,
    String parentId,
    int vendorId,
    int deviceId,
    String model,
    boolean healthy,
    HcaInfo hca) {

  public Device {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(parentId, () -> "device " + id + " has no parent in the PCIe tree");
    if (kind == DeviceKind.HCA && hca == null) {
      throw new IllegalArgumentException("HCA " + id + " has no HCA attributes");
    }
  }

  public Device withHealthy(boolean value) {
    return new Device(
        id, kind, name, address, numaNode, parentId, vendorId, deviceId, model, value, hca);
  }

  public Device withId(String value) {
    return new Device(
        value, kind, name, address, numaNode, parentId, vendorId, deviceId, model, healthy, hca);
  }
}
