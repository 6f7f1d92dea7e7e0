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
    PciAddress physicalFunction) {

  public HcaInfo {
    netdevs = netdevs == null ? List.of() : List.copyOf(netdevs);
  }

  /** An HCA known only by its ibverbs name. */
  public static HcaInfo named(String ibDevice) {
    return new HcaInfo(ibDevice, null, null, null, null, List.of(), null, false, null);
  }

  /** Port ACTIVE, or unknown (a source that cannot read ports does not make a device unhealthy). */
  public boolean portUsable() {
    return portState == null || portState.endsWith("ACTIVE");
  }
}
