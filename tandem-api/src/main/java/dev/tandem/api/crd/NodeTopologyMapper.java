package dev.tandem.api.crd;

import dev.tandem.api.ResourceNames;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.PcieNodeKind;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The one mapping between the model ({@link Machine}) and the published resource ({@link
 * NodeTopology}). The agent writes through it and the scheduler extender reads through it; {@code
 * toMachine(toResource(m))} equals {@code m}.
 */
public final class NodeTopologyMapper {

  private NodeTopologyMapper() {}

  /** The resource for a machine, named after its node, without status. */
  public static NodeTopology toResource(Machine machine) {
    return toResource(machine, null);
  }

  /** The resource for a machine, named after its node, with the given status (may be null). */
  public static NodeTopology toResource(Machine machine, NodeTopologyStatus status) {
    NodeTopology resource = new NodeTopology();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(machine.nodeName());
    resource.setMetadata(meta);
    resource.setSpec(toSpec(machine));
    resource.setStatus(status);
    return resource;
  }

  /** The spec for a machine, its devices under the default resource names. */
  public static NodeTopologySpec toSpec(Machine machine) {
    return toSpec(machine, ResourceNames.DEFAULT);
  }

  /** The spec for a machine, each device under the resource that hands it out. */
  public static NodeTopologySpec toSpec(Machine machine, ResourceNames resources) {
    Map<String, PcieNode> nodes = new HashMap<>();
    machine.pcie().forEach(n -> nodes.put(n.id(), n));
    NodeTopologySpec.Summary summary =
        new NodeTopologySpec.Summary(
            machine.gpus().size(), machine.hcas().size(), machine.switches().size());
    return new NodeTopologySpec(
        machine.source(),
        summary,
        machine.numaNodes(),
        machine.pcie().stream().map(NodeTopologyMapper::toEntry).toList(),
        machine.devices().stream()
            .map(d -> toEntry(d, resources.of(d.kind()), LocalityIndex.switchOf(d, nodes)))
            .toList());
  }

  /**
   * The machine a resource describes; its node name is the resource's name.
   *
   * @throws InvalidNodeTopologyException naming the resource and the field when it cannot be read
   */
  public static Machine toMachine(NodeTopology resource) {
    String node = resource.getMetadata() == null ? null : resource.getMetadata().getName();
    if (node == null) {
      throw new InvalidNodeTopologyException("?", "metadata.name is missing");
    }
    NodeTopologySpec spec = resource.getSpec();
    if (spec == null) {
      throw new InvalidNodeTopologyException(node, "spec is missing");
    }
    try {
      return new Machine(
          node,
          spec.source(),
          spec.pcie().stream().map(NodeTopologyMapper::toNode).toList(),
          spec.devices().stream().map(NodeTopologyMapper::toDevice).toList());
    } catch (RuntimeException e) {
      throw new InvalidNodeTopologyException(node, e.getMessage());
    }
  }

  private static PcieNodeEntry toEntry(PcieNode n) {
    return new PcieNodeEntry(
        n.id(),
        n.kind().name(),
        n.parentId(),
        text(n.address()),
        hex(n.vendorId()),
        hex(n.deviceId()),
        n.numaNodes());
  }

  private static PcieNode toNode(PcieNodeEntry e) {
    return new PcieNode(
        e.id(),
        PcieNodeKind.valueOf(e.kind()),
        e.parent(),
        address(e.address()),
        unhex(e.vendor()),
        unhex(e.device()),
        e.numaNodes());
  }

  private static DeviceEntry toEntry(Device d, String resource, String switchId) {
    return new DeviceEntry(
        d.id(),
        d.kind().name(),
        d.name(),
        resource,
        text(d.address()),
        d.numaNode() < 0 ? null : d.numaNode(),
        d.parentId(),
        switchId,
        hex(d.vendorId()),
        hex(d.deviceId()),
        d.model(),
        d.healthy(),
        d.hca() == null ? null : toEntry(d.hca()));
  }

  private static Device toDevice(DeviceEntry e) {
    return new Device(
        e.id(),
        DeviceKind.valueOf(e.kind()),
        e.name(),
        address(e.address()),
        e.numaNode() == null ? -1 : e.numaNode(),
        e.parent(),
        unhex(e.vendor()),
        unhex(e.device()),
        e.model(),
        e.healthy(),
        e.hca() == null ? null : toHca(e.hca()));
  }

  private static HcaEntry toEntry(HcaInfo h) {
    return new HcaEntry(
        h.ibDevice(),
        h.linkLayer(),
        h.portState(),
        h.rate(),
        h.nodeGuid(),
        h.netdevs(),
        h.uverbs(),
        h.virtualFunction(),
        text(h.physicalFunction()));
  }

  private static HcaInfo toHca(HcaEntry e) {
    return new HcaInfo(
        e.ibDevice(),
        e.linkLayer(),
        e.portState(),
        e.rate(),
        e.nodeGuid(),
        e.netdevs(),
        e.uverbs(),
        e.virtualFunction(),
        address(e.physicalFunction()));
  }

  private static String text(PciAddress address) {
    return address == null ? null : address.toString();
  }

  private static PciAddress address(String text) {
    return text == null ? null : PciAddress.parse(text);
  }

  private static String hex(int id) {
    return id < 0 ? null : String.format(Locale.ROOT, "%04x", id);
  }

  private static int unhex(String text) {
    return text == null ? -1 : Integer.parseInt(text, 16);
  }
}
