package dev.tandem.api.dra;

/**
 * The qualified names of the attributes the driver publishes on its devices (docs/dra.md,
 * "Attributes"). The {@code resource.kubernetes.io} ones are Kubernetes' standard attributes, with
 * the names and value formats of {@code k8s.io/dynamic-resource-allocation/deviceattribute}; the
 * {@code tandem.dev} ones are Tandem's.
 */
public final class DraAttributes {

  /** Kubernetes' domain for standard device attributes. */
  public static final String STANDARD_DOMAIN = "resource.kubernetes.io";

  /** Tandem's domain. */
  public static final String TANDEM_DOMAIN = "tandem.dev";

  /**
   * The PCIe root complex: {@code pci<domain>:<bus>} as sysfs names it, e.g. {@code pci0000:40}.
   */
  public static final String PCIE_ROOT = STANDARD_DOMAIN + "/pcieRoot";

  /** The device's PCI address in extended BDF form, {@code 0000:4e:00.0}. */
  public static final String PCI_BUS_ID = STANDARD_DOMAIN + "/pciBusID";

  /** The NUMA node from the kernel's {@code numa_node}; left out when the device has none. */
  public static final String NUMA_NODE = STANDARD_DOMAIN + "/numaNode";

  /** {@code gpu} or {@code hca}. */
  public static final String KIND = TANDEM_DOMAIN + "/kind";

  /**
   * The group that Tandem's {@code switch} alignment means (locality {@code PXB} or better): the
   * PCI address of the root port above the device's PCIe switches. Two devices with one value are
   * at worst {@code PXB} apart. Left out when no bridge is above the device.
   */
  public static final String PCIE_SWITCH = TANDEM_DOMAIN + "/pcieSwitch";

  /**
   * The {@code PIX} group: the PCI address of the switch the device hangs off (its upstream port),
   * or of its root port when it sits on one directly. Two devices with one value are at worst
   * {@code PIX} apart. Left out when no bridge is above the device.
   */
  public static final String PIX_GROUP = TANDEM_DOMAIN + "/pixGroup";

  /**
   * Tandem's {@code root-complex} group (topology-core's {@code PHB} group): the host bridge above
   * the device, as discovery names it ({@code hostbridge:0000:40}). Unlike {@link #PCIE_ROOT} it is
   * there on a VM whose NCCL topology file names its host bridges otherwise. Left out when no host
   * bridge is above the device.
   */
  public static final String ROOT_COMPLEX = TANDEM_DOMAIN + "/rootComplex";

  /**
   * Tandem's {@code numa} group (topology-core's {@code NODE} group): the CPU domain the device's
   * host bridge belongs to, as discovery names it ({@code numa:0-1}: the NUMA nodes of one package
   * under SNC or NPS). Unlike {@link #NUMA_NODE} it is one value for the whole package, and a
   * device whose {@code numa_node} is -1 still has its host bridge's.
   */
  public static final String CPU_DOMAIN = TANDEM_DOMAIN + "/cpuDomain";

  /** A GPU's UUID, {@code GPU-…}. */
  public static final String UUID = TANDEM_DOMAIN + "/uuid";

  /** A GPU's product name, e.g. {@code NVIDIA H100 80GB HBM3}. */
  public static final String PRODUCT = TANDEM_DOMAIN + "/product";

  /** An HCA's ibverbs name, {@code mlx5_0}. */
  public static final String IB_DEVICE = TANDEM_DOMAIN + "/ibDevice";

  /** An HCA's network interfaces, comma-separated, {@code ib0}. */
  public static final String NETDEV = TANDEM_DOMAIN + "/netdev";

  /** {@code InfiniBand} or {@code Ethernet}. */
  public static final String LINK_LAYER = TANDEM_DOMAIN + "/linkLayer";

  /** The port state without its number: {@code ACTIVE}, {@code DOWN}. */
  public static final String PORT_STATE = TANDEM_DOMAIN + "/portState";

  /** The port rate as the HCA reports it, {@code 400 Gb/sec (4X NDR)}. */
  public static final String RATE = TANDEM_DOMAIN + "/rate";

  /** The port rate in Gb/s, an integer, for CEL selectors ({@code >= 200}). */
  public static final String RATE_GBPS = TANDEM_DOMAIN + "/rateGbps";

  /**
   * The fabric rail an HCA is cabled to, an integer (docs/rails.md): HCAs with one value on two
   * nodes reach each other through one leaf switch. Left out for an HCA on no rail.
   */
  public static final String RAIL = TANDEM_DOMAIN + "/rail";

  /**
   * An SR-IOV VF's PF, as its PCI address ({@code 0000:3b:00.0}); only VFs ({@code sriov} shape)
   * have it. Two VFs with one value share a port's bandwidth.
   */
  public static final String PF = TANDEM_DOMAIN + "/pf";

  /**
   * The PCI address of an HCA's ConnectX-8 Data Direct function ({@code 0009:03:00.0}), where
   * discovery places the HCA (so its {@code pcieRoot} and switch keys are that function's, by its
   * GPU); {@link #PCI_BUS_ID} stays the HCA's own. Only HCAs with one have it.
   */
  public static final String DATA_DIRECT = TANDEM_DOMAIN + "/dataDirect";

  /**
   * The consumable capacity of an HCA in the {@code shared} shape: how many claims may hold it at
   * once, each taking one share unless it asks for more. A capacity, not an attribute.
   */
  public static final String SHARES = TANDEM_DOMAIN + "/shares";

  /** The longest domain of an attribute name. */
  public static final int MAX_DOMAIN_LENGTH = 63;

  /** The longest identifier of an attribute name (after the domain). */
  public static final int MAX_ID_LENGTH = 32;

  private DraAttributes() {}
}
