package dev.tandem.topology.model;

import java.util.List;
import java.util.Objects;

/**
 * An inner node of a machine's I/O tree: a CPU domain, a host bridge or a PCI bridge.
 *
 * @param id unique within the machine, e.g. {@code pci:0000:49:00.0}, {@code hostbridge:0000:40}
 * @param kind the role in the tree
 * @param parentId the parent's id, {@code null} for a CPU domain
 * @param address PCI address of a bridge; {@code null} for CPU domains and host bridges
 * @param vendorId PCI vendor id, or -1 when unknown
 * @param deviceId PCI device id, or -1 when unknown
 * @param numaNodes the NUMA nodes of a CPU domain; empty for the other kinds
 */
public record PcieNode(
    String id,
    PcieNodeKind kind,
    String parentId,
    PciAddress address,
    int vendorId,
    int deviceId,
    List<Integer> numaNodes) {

  public PcieNode {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(kind, "kind");
    if (kind != PcieNodeKind.CPU_DOMAIN && parentId == null) {
      throw new IllegalArgumentException("PCIe node " + id + " (" + kind + ") has no parent");
    }
    numaNodes = numaNodes == null ? List.of() : List.copyOf(numaNodes);
  }

  public boolean isBridge() {
    return kind != PcieNodeKind.CPU_DOMAIN && kind != PcieNodeKind.HOST_BRIDGE;
  }
}
