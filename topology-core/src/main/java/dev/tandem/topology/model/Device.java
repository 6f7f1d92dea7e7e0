package dev.tandem.topology.model;

import java.util.Objects;

/**
 * A GPU or an HCA, as the kubelet and the workload know it.
 *
 * <p>Made with {@link #gpu} or {@link #hca} and the {@link Builder}'s named values, or changed
 * through {@link #toBuilder}. The canonical constructor stays public (a record's must) for code
 * that sets every component from a source of the same shape, as the NodeTopology mapper does.
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

  /** A GPU with this id, to be built; see {@link Builder} for what is unset. */
  public static Builder gpu(String id) {
    return new Builder(id, DeviceKind.GPU);
  }

  /** An HCA with this id and these attributes, to be built; see {@link Builder}. */
  public static Builder hca(String id, HcaInfo hca) {
    return new Builder(id, DeviceKind.HCA).hca(hca);
  }

  /** A builder holding this device's values, to change some of them. */
  public Builder toBuilder() {
    return new Builder(id, kind)
        .name(name)
        .address(address)
        .numaNode(numaNode)
        .parentId(parentId)
        .vendorId(vendorId)
        .deviceId(deviceId)
        .model(model)
        .healthy(healthy)
        .hca(hca);
  }

  public Device withHealthy(boolean value) {
    return toBuilder().healthy(value).build();
  }

  public Device withId(String value) {
    return toBuilder().id(value).build();
  }

  /**
   * Builds a {@link Device} by name. Required, else {@link #build()} fails naming the device: the
   * id and kind (given to {@link Device#gpu} or {@link Device#hca}), {@link #parentId}, and for an
   * HCA its {@link #hca} attributes. Unset, the rest are what a source that cannot see them
   * reports: no {@link #name}, {@link #address} or {@link #model}, NUMA node, vendor and device id
   * -1, and healthy.
   */
  public static final class Builder {

    private String id;
    private final DeviceKind kind;
    private String name;
    private PciAddress address;
    private int numaNode = -1;
    private String parentId;
    private int vendorId = -1;
    private int deviceId = -1;
    private String model;
    private boolean healthy = true;
    private HcaInfo hca;

    private Builder(String id, DeviceKind kind) {
      this.id = id;
      this.kind = kind;
    }

    /** The id the kubelet uses. */
    public Builder id(String value) {
      this.id = value;
      return this;
    }

    /** The source's human name ({@code cuda0}, {@code mlx5_0}). */
    public Builder name(String value) {
      this.name = value;
      return this;
    }

    /** The PCI address; null when the source hides it. */
    public Builder address(PciAddress value) {
      this.address = value;
      return this;
    }

    /** The NUMA node, -1 when unknown. */
    public Builder numaNode(int value) {
      this.numaNode = value;
      return this;
    }

    /** The PCIe node the device hangs off. */
    public Builder parentId(String value) {
      this.parentId = value;
      return this;
    }

    /** The PCI vendor id, -1 when unknown. */
    public Builder vendorId(int value) {
      this.vendorId = value;
      return this;
    }

    /** The PCI device id, -1 when unknown. */
    public Builder deviceId(int value) {
      this.deviceId = value;
      return this;
    }

    /** The marketing name; null when unknown. */
    public Builder model(String value) {
      this.model = value;
      return this;
    }

    /** Whether the device can be allocated. */
    public Builder healthy(boolean value) {
      this.healthy = value;
      return this;
    }

    /** The HCA attributes; null for a GPU. */
    public Builder hca(HcaInfo value) {
      this.hca = value;
      return this;
    }

    public Device build() {
      return new Device(
          id, kind, name, address, numaNode, parentId, vendorId, deviceId, model, healthy, hca);
    }
  }
}
