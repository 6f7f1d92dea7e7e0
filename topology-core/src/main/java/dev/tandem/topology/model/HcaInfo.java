package dev.tandem.topology.model;

import java.util.List;

/**
 * What an RDMA HCA adds to a device: its port state and the names a workload needs.
 *
 * @param ibDevice ibverbs device name, e.g. {@code mlx5_0}
 * @param linkLayer {@code InfiniBand} or {@code Ethernet}, as the port reports it; null if unknown
 * @param portState e.g. {@code ACTIVE}, {@code DOWN}; null if unknown
 * @param rate e.g. {@code 400 Gb/sec (4X NDR)}; null if unknown
 * @param nodeGuid node GUID as {@code xxxx:xxxx:xxxx:xxxx}; null if unknown
 * @param netdevs network interfaces of the HCA, e.g. {@code ib0}
 * @param uverbs the uverbs character device name, e.g. {@code uverbs0}; null if unknown
 * @param virtualFunction true for an SR-IOV VF
 * @param physicalFunction PCI address of the PF of a VF; null otherwise
 * @param dataDirect PCI address of the HCA's Data Direct function (ConnectX-8 {@code 15b3:2100}, a
 *     DMA engine in a GPU's PCIe domain): where the HCA sits in the tree when it has one, its own
 *     PCI address staying {@link Device#address()}; null when it has none or it is unknown
 * @param rail the fabric rail the HCA is cabled to (HCA k of every node of a rail-optimized fabric
 *     on leaf switch k, docs/rails.md); null when it has none (a storage HCA) or it is unknown
 */
public record HcaInfo(
    String ibDevice,
    String linkLayer,
    String portState,
    String rate,
    String nodeGuid,
    List<String> netdevs,
    String uverbs,
    boolean virtualFunction,
    PciAddress physicalFunction,
    PciAddress dataDirect,
    Integer rail) {

  public HcaInfo {
    netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
    if (rail != null && rail < 0) {
      throw new IllegalArgumentException("rail " + rail + " of HCA " + ibDevice + " is negative");
    }
  }

  /** The same HCA on {@code value} (null: on no rail). */
  public HcaInfo withRail(Integer value) {
    return toBuilder().rail(value).build();
  }

  /** An HCA known only by its ibverbs name. */
  public static HcaInfo named(String ibDevice) {
    return builder(ibDevice).build();
  }

  /**
   * HCA attributes to be built, for the HCA of this ibverbs name (null when its RDMA driver is not
   * loaded). Unset, the rest are unknown (null), no netdevs, not a virtual function.
   */
  public static Builder builder(String ibDevice) {
    return new Builder(ibDevice);
  }

  /** A builder holding these attributes, to change some of them. */
  public Builder toBuilder() {
    return new Builder(ibDevice)
        .linkLayer(linkLayer)
        .portState(portState)
        .rate(rate)
        .nodeGuid(nodeGuid)
        .netdevs(netdevs)
        .uverbs(uverbs)
        .virtualFunction(virtualFunction)
        .physicalFunction(physicalFunction)
        .dataDirect(dataDirect)
        .rail(rail);
  }

  /** Port ACTIVE, or unknown (a source that cannot read ports does not make a device unhealthy). */
  public boolean portUsable() {
    return portState == null || portState.endsWith("ACTIVE");
  }

  /** Builds {@link HcaInfo} by name; see {@link HcaInfo#builder}. */
  public static final class Builder {

    private String ibDevice;
    private String linkLayer;
    private String portState;
    private String rate;
    private String nodeGuid;
    private List<String> netdevs = List.of();
    private String uverbs;
    private boolean virtualFunction;
    private PciAddress physicalFunction;
    private PciAddress dataDirect;
    private Integer rail;

    private Builder(String ibDevice) {
      this.ibDevice = ibDevice;
    }

    /** The ibverbs device name; null when unknown. */
    public Builder ibDevice(String value) {
      this.ibDevice = value;
      return this;
    }

    /** {@code InfiniBand} or {@code Ethernet}. */
    public Builder linkLayer(String value) {
      this.linkLayer = value;
      return this;
    }

    /** e.g. {@code ACTIVE}, {@code DOWN}. */
    public Builder portState(String value) {
      this.portState = value;
      return this;
    }

    /** e.g. {@code 400 Gb/sec (4X NDR)}. */
    public Builder rate(String value) {
      this.rate = value;
      return this;
    }

    /** The node GUID as {@code xxxx:xxxx:xxxx:xxxx}. */
    public Builder nodeGuid(String value) {
      this.nodeGuid = value;
      return this;
    }

    /** The HCA's network interfaces; null is none. */
    public Builder netdevs(List<String> value) {
      this.netdevs = value;
      return this;
    }

    /** The uverbs character device name, e.g. {@code uverbs0}. */
    public Builder uverbs(String value) {
      this.uverbs = value;
      return this;
    }

    /** Whether the HCA is an SR-IOV VF. */
    public Builder virtualFunction(boolean value) {
      this.virtualFunction = value;
      return this;
    }

    /** The PCI address of a VF's PF. */
    public Builder physicalFunction(PciAddress value) {
      this.physicalFunction = value;
      return this;
    }

    /** The PCI address of the HCA's Data Direct function. */
    public Builder dataDirect(PciAddress value) {
      this.dataDirect = value;
      return this;
    }

    /** The rail the HCA is cabled to; null for none. */
    public Builder rail(Integer value) {
      this.rail = value;
      return this;
    }

    public HcaInfo build() {
      return new HcaInfo(
          ibDevice,
          linkLayer,
          portState,
          rate,
          nodeGuid,
          netdevs,
          uverbs,
          virtualFunction,
          physicalFunction,
          dataDirect,
          rail);
    }
  }
}
