package dev.tandem.topology.model;

/** The role of an inner node of a machine's I/O tree. */
public enum PcieNodeKind {
  /**
   * Where PCIe attaches on the CPU side: one NUMA node, or a whole package when the firmware
   * reports PCI locality per socket. Devices below one CPU domain are at worst {@link
   * Locality#NODE}.
   */
  CPU_DOMAIN,
  /** A PCIe host bridge (root complex). */
  HOST_BRIDGE,
  /** A bridge directly below a host bridge. */
  ROOT_PORT,
  /** The upstream port of a PCIe switch: a bridge below another bridge, with bridges below it. */
  SWITCH_UPSTREAM,
  /** A downstream port of a PCIe switch. */
  SWITCH_DOWNSTREAM,
  /** Any other PCI-to-PCI bridge. */
  BRIDGE
}
