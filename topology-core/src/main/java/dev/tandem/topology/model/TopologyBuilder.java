package dev.tandem.topology.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Builds a {@link Machine} from what a discovery source sees, applying the rules every source
 * shares, so hwloc, sysfs and NCCL files give the same model for the same machine.
 *
 * <ul>
 *   <li><b>On-card bridges are part of the device.</b> Walking up from a device, a bridge is folded
 *       into it when the bridge has the device's PCI vendor, sits below another bridge (a root port
 *       is never folded), and every endpoint below it is a function of that same device. That is
 *       how an AMD MI50's own 1002:14a0/14a1 bridges, or a ConnectX card's internal bridge, stop
 *       looking like a platform PCIe switch. A switch below which several devices hang (a K80's
 *       PLX, a DGX switch) is kept.
 *   <li><b>Only what matters is kept.</b> Bridges that lead to no GPU or HCA are dropped.
 *   <li><b>Bridge roles come from the shape.</b> Below a host bridge: root port. Below a bridge and
 *       with bridges below: switch upstream port. Below an upstream port: downstream port.
 *   <li><b>Ids are unique.</b> Devices whose source ids collide (scrubbed all-zero GPU UUIDs) get
 *       their PCI address as id instead, and {@link #warnings()} says so.
 * </ul>
 */
public final class TopologyBuilder {

  private final String nodeName;
  private final String source;
  private final Map<String, Raw> nodes = new LinkedHashMap<>();
  private final List<Endpoint> endpoints = new ArrayList<>();
  private final List<Device> devices = new ArrayList<>();
  private final List<String> warnings = new ArrayList<>();

  private record Raw(
      String id,
      PcieNodeKind kind,
      String parentId,
      PciAddress address,
      int vendorId,
      int deviceId,
      List<Integer> numaNodes) {}

  private record Endpoint(PciAddress address, String parentId) {}

  public TopologyBuilder(String nodeName, String source) {
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
    this.source = source;
  }

  public static String bridgeId(PciAddress address) {
    return "pci:" + address;
  }

  public TopologyBuilder cpuDomain(String id, List<Integer> numaNodes) {
    put(new Raw(id, PcieNodeKind.CPU_DOMAIN, null, null, -1, -1, numaNodes));
    return this;
  }

  public TopologyBuilder hostBridge(String id, String parentId) {
    put(new Raw(id, PcieNodeKind.HOST_BRIDGE, parentId, null, -1, -1, List.of()));
    return this;
  }

  /** Adds a PCI-to-PCI bridge with id {@link #bridgeId}; its role is decided by {@link #build}. */
  public TopologyBuilder bridge(PciAddress address, String parentId, int vendorId, int deviceId) {
    put(
        new Raw(
            bridgeId(address),
            PcieNodeKind.BRIDGE,
            parentId,
            address,
            vendorId,
            deviceId,
            List.of()));
    return this;
  }

  /** Adds a PCI endpoint that is neither GPU nor HCA (NVMe, NIC without RDMA…). */
  public TopologyBuilder endpoint(PciAddress address, String parentId) {
    endpoints.add(new Endpoint(address, parentId));
    return this;
  }

  public TopologyBuilder device(Device device) {
    devices.add(device);
    return this;
  }

  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  public Machine build() {
    for (Raw r : nodes.values()) {
      if (r.parentId() != null && !nodes.containsKey(r.parentId())) {
        throw new InvalidTopologyException(
            nodeName,
            "PCIe node " + r.id() + " names parent " + r.parentId() + ", which was never added");
      }
    }
    List<Device> placed = uniqueIds(devices.stream().map(this::foldOnCardBridges).toList());
    Set<String> kept = keptNodes(placed);
    Set<String> hasBridgeChild = new HashSet<>();
    for (Raw r : nodes.values()) {
      if (r.parentId() != null && r.kind() == PcieNodeKind.BRIDGE) {
        hasBridgeChild.add(r.parentId());
      }
    }
    Map<String, PcieNodeKind> roles = new HashMap<>();
    List<PcieNode> out = new ArrayList<>();
    for (Raw r : topDown()) {
      PcieNodeKind kind =
          r.kind() == PcieNodeKind.BRIDGE ? role(r, roles, hasBridgeChild) : r.kind();
      roles.put(r.id(), kind);
      if (kept.contains(r.id())) {
        out.add(
            new PcieNode(
                r.id(),
                kind,
                r.parentId(),
                r.address(),
                r.vendorId(),
                r.deviceId(),
                r.numaNodes()));
      }
    }
    return new Machine(nodeName, source, out, placed);
  }

  private void put(Raw raw) {
    if (nodes.putIfAbsent(raw.id(), raw) != null) {
      throw new InvalidTopologyException(nodeName, "PCIe node " + raw.id() + " was added twice");
    }
  }

  private PcieNodeKind role(Raw r, Map<String, PcieNodeKind> roles, Set<String> hasBridgeChild) {
    PcieNodeKind parent = roles.get(r.parentId());
    if (parent == PcieNodeKind.HOST_BRIDGE || parent == PcieNodeKind.CPU_DOMAIN) {
      return PcieNodeKind.ROOT_PORT;
    }
    if (hasBridgeChild.contains(r.id())) {
      return PcieNodeKind.SWITCH_UPSTREAM;
    }
    return parent == PcieNodeKind.SWITCH_UPSTREAM
        ? PcieNodeKind.SWITCH_DOWNSTREAM
        : PcieNodeKind.BRIDGE;
  }

  private Device foldOnCardBridges(Device d) {
    if (!nodes.containsKey(d.parentId())) {
      throw new InvalidTopologyException(
          nodeName,
          "device " + d.id() + " names parent " + d.parentId() + ", which was never added");
    }
    String parent = d.parentId();
    while (isOnCard(nodes.get(parent), d)) {
      parent = nodes.get(parent).parentId();
    }
    if (parent.equals(d.parentId())) {
      return d;
    }
    return d.toBuilder().parentId(parent).build();
  }

  private boolean isOnCard(Raw bridge, Device d) {
    if (bridge.kind() != PcieNodeKind.BRIDGE
        || d.address() == null
        || d.vendorId() < 0
        || bridge.vendorId() != d.vendorId()) {
      return false;
    }
    Raw parent = nodes.get(bridge.parentId());
    if (parent.kind() != PcieNodeKind.BRIDGE) {
      return false;
    }
    for (PciAddress a : endpointsBelow(bridge.id())) {
      if (!a.sameSlot(d.address())) {
        return false;
      }
    }
    return true;
  }

  private List<PciAddress> endpointsBelow(String nodeId) {
    List<PciAddress> out = new ArrayList<>();
    for (Endpoint e : endpoints) {
      if (isBelow(e.parentId(), nodeId)) {
        out.add(e.address());
      }
    }
    for (Device d : devices) {
      if (isBelow(d.parentId(), nodeId)) {
        out.add(d.address() != null ? d.address() : new PciAddress(0xffff, 0xff, 0x1f, 7));
      }
    }
    return out;
  }

  private boolean isBelow(String start, String ancestor) {
    for (String at = start; at != null; at = nodes.get(at).parentId()) {
      if (at.equals(ancestor)) {
        return true;
      }
    }
    return false;
  }

  private Set<String> keptNodes(List<Device> placed) {
    Set<String> kept = new HashSet<>();
    for (Raw r : nodes.values()) {
      if (r.kind() == PcieNodeKind.CPU_DOMAIN) {
        kept.add(r.id());
      }
    }
    for (Device d : placed) {
      for (String at = d.parentId(); at != null; at = nodes.get(at).parentId()) {
        kept.add(at);
      }
    }
    return kept;
  }

  private List<Raw> topDown() {
    List<Raw> out = new ArrayList<>();
    Set<String> emitted = new HashSet<>();
    for (Raw r : nodes.values()) {
      emitWithAncestors(r, emitted, out);
    }
    return out;
  }

  private void emitWithAncestors(Raw r, Set<String> emitted, List<Raw> out) {
    if (emitted.contains(r.id())) {
      return;
    }
    if (r.parentId() != null) {
      emitWithAncestors(nodes.get(r.parentId()), emitted, out);
    }
    emitted.add(r.id());
    out.add(r);
  }

  private List<Device> uniqueIds(List<Device> in) {
    Map<String, Integer> counts = new HashMap<>();
    in.forEach(d -> counts.merge(d.id(), 1, Integer::sum));
    List<Device> out = new ArrayList<>();
    for (Device d : in) {
      if (counts.get(d.id()) > 1 && d.address() != null) {
        warnings.add(
            "device id "
                + d.id()
                + " is shared by "
                + counts.get(d.id())
                + " devices on node "
                + nodeName
                + " (scrubbed or duplicated ids); using PCI address "
                + d.address()
                + " as the id of "
                + (d.name() != null ? d.name() : d.kind()));
        out.add(d.withId(d.address().toString()));
      } else {
        out.add(d);
      }
    }
    return out;
  }
}
