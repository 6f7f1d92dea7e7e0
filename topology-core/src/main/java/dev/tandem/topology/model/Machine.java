package dev.tandem.topology.model;

import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One node's I/O tree and the GPUs and HCAs in it: the model every component shares.
 *
 * <p>Devices are kept in a canonical order: GPUs in PCI bus order (the order in which nvidia-smi
 * numbers them {@code GPU0, GPU1, …}), then HCAs in natural name order ({@code mlx5_2} before
 * {@code mlx5_10}).
 *
 * @param nodeName the Kubernetes node name
 * @param source where the tree came from: {@code hwloc}, {@code sysfs}, {@code xml}, {@code nccl}…
 * @param pcie inner nodes of the tree (CPU domains, host bridges, bridges), parents before children
 * @param devices GPUs and HCAs
 */
public record Machine(String nodeName, String source, List<PcieNode> pcie, List<Device> devices) {

  public static final Comparator<Device> CANONICAL_ORDER =
      Comparator.comparing(Device::kind)
          .thenComparing((a, b) -> a.kind() == DeviceKind.GPU ? byAddress(a, b) : byName(a, b));

  public Machine {
    Objects.requireNonNull(nodeName, "nodeName");
    pcie = List.copyOf(pcie);
    devices = devices.stream().sorted(CANONICAL_ORDER).toList();
    validate(nodeName, pcie, devices);
  }

  public List<Device> gpus() {
    return devices.stream().filter(d -> d.kind() == DeviceKind.GPU).toList();
  }

  public List<Device> hcas() {
    return devices.stream().filter(d -> d.kind() == DeviceKind.HCA).toList();
  }

  public Optional<Device> device(String id) {
    return devices.stream().filter(d -> d.id().equals(id)).findFirst();
  }

  public Optional<PcieNode> node(String id) {
    return pcie.stream().filter(n -> n.id().equals(id)).findFirst();
  }

  /** The PCIe switches (their upstream ports). */
  public List<PcieNode> switches() {
    return pcie.stream().filter(n -> n.kind() == PcieNodeKind.SWITCH_UPSTREAM).toList();
  }

  /** All NUMA node ids named by the CPU domains, ascending. */
  public List<Integer> numaNodes() {
    return pcie.stream().flatMap(n -> n.numaNodes().stream()).distinct().sorted().toList();
  }

  /** An empty machine: a node without GPUs or HCAs publishes this. */
  public static Machine empty(String nodeName, String source) {
    return new Machine(nodeName, source, List.of(), List.of());
  }

  private static void validate(String nodeName, List<PcieNode> pcie, List<Device> devices) {
    Map<String, PcieNode> byId = new HashMap<>();
    for (PcieNode n : pcie) {
      if (byId.put(n.id(), n) != null) {
        throw new InvalidTopologyException(nodeName, "PCIe node id " + n.id() + " appears twice");
      }
      if (n.parentId() != null && !byId.containsKey(n.parentId())) {
        throw new InvalidTopologyException(
            nodeName,
            "PCIe node "
                + n.id()
                + " names parent "
                + n.parentId()
                + ", which is not listed before it");
      }
    }
    Set<String> ids = new HashSet<>();
    for (Device d : devices) {
      if (!ids.add(d.id())) {
        throw new InvalidTopologyException(nodeName, "device id " + d.id() + " appears twice");
      }
      if (!byId.containsKey(d.parentId())) {
        throw new InvalidTopologyException(
            nodeName,
            "device "
                + d.id()
                + " names parent "
                + d.parentId()
                + ", which is not in the PCIe tree");
      }
    }
  }

  private static int byAddress(Device a, Device b) {
    if (a.address() != null && b.address() != null) {
      return a.address().compareTo(b.address());
    }
    if (a.address() != null || b.address() != null) {
      return a.address() != null ? -1 : 1;
    }
    return byName(a, b);
  }

  private static int byName(Device a, Device b) {
    String x = a.name() != null ? a.name() : a.id();
    String y = b.name() != null ? b.name() : b.id();
    int c = NaturalOrder.INSTANCE.compare(x, y);
    return c != 0 ? c : a.id().compareTo(b.id());
  }
}
