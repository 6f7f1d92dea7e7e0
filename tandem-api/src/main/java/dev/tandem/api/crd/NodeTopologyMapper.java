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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

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
   *     (e.g. {@code spec.devices[3] (mlx5_2).kind: 'TPU' is not one of [GPU, HCA]})
   */
  public static Machine toMachine(NodeTopology resource) {
    return toMachine(resource, Sharing.NONE);
  }

  /**
   * Like {@link #toMachine(NodeTopology)}, the parts that nodes of one model have in common (the
   * PCIe tree, names, PCI addresses, HCA attributes) taken from {@code sharing}.
   */
  public static Machine toMachine(NodeTopology resource, Sharing sharing) {
    String node = resource.getMetadata() == null ? null : resource.getMetadata().getName();
    if (node == null) {
      throw new InvalidNodeTopologyException("?", "metadata.name is missing");
    }
    NodeTopologySpec spec = resource.getSpec();
    if (spec == null) {
      throw new InvalidNodeTopologyException(node, "spec is missing");
    }
    if (spec.pcie() == null || spec.devices() == null) {
      throw new InvalidNodeTopologyException(
          node, "spec." + (spec.pcie() == null ? "pcie" : "devices") + " is missing");
    }
    try {
      List<PcieNode> pcie = new ArrayList<>();
      for (int i = 0; i < spec.pcie().size(); i++) {
        PcieNodeEntry e = spec.pcie().get(i);
        pcie.add(sharing.share(toNode(e, "spec.pcie[" + i + "] (" + e.id() + ")", sharing)));
      }
      List<Device> devices = new ArrayList<>();
      for (int i = 0; i < spec.devices().size(); i++) {
        DeviceEntry e = spec.devices().get(i);
        devices.add(toDevice(e, "spec.devices[" + i + "] (" + e.id() + ")", sharing));
      }
      return new Machine(
          sharing.share(node),
          sharing.share(spec.source()),
          sharing.share(List.copyOf(pcie)),
          devices);
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

  private static PcieNode toNode(PcieNodeEntry e, String at, Sharing sharing) {
    return new PcieNode(
        sharing.share(e.id()),
        constant(PcieNodeKind.class, e.kind(), at + ".kind"),
        sharing.share(e.parent()),
        sharing.share(field(at + ".address", () -> address(e.address()))),
        field(at + ".vendor", () -> unhex(e.vendor())),
        field(at + ".device", () -> unhex(e.device())),
        sharing.share(e.numaNodes()));
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

  /** A GPU's id (its UUID) is its own; an HCA's ibverbs name repeats on every node of a model. */
  private static Device toDevice(DeviceEntry e, String at, Sharing sharing) {
    return new Device(
        e.hca() == null ? e.id() : sharing.share(e.id()),
        constant(DeviceKind.class, e.kind(), at + ".kind"),
        sharing.share(e.name()),
        sharing.share(field(at + ".address", () -> address(e.address()))),
        e.numaNode() == null ? -1 : e.numaNode(),
        sharing.share(e.parent()),
        field(at + ".vendor", () -> unhex(e.vendor())),
        field(at + ".device", () -> unhex(e.device())),
        sharing.share(e.model()),
        e.healthy(),
        e.hca() == null ? null : sharing.share(field(at + ".hca", () -> toHca(e.hca(), sharing))));
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
        text(h.physicalFunction()),
        text(h.dataDirect()),
        h.rail());
  }

  private static HcaInfo toHca(HcaEntry e, Sharing sharing) {
    return new HcaInfo(
        sharing.share(e.ibDevice()),
        sharing.share(e.linkLayer()),
        sharing.share(e.portState()),
        sharing.share(e.rate()),
        e.nodeGuid(),
        sharing.share(e.netdevs()),
        sharing.share(e.uverbs()),
        e.virtualFunction(),
        sharing.share(address(e.physicalFunction())),
        address(e.dataDirect()),
        e.rail());
  }

  /** Reads one field, naming it in the error when its value cannot be read. */
  private static <T> T field(String path, Supplier<T> read) {
    try {
      return read.get();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  private static <E extends Enum<E>> E constant(Class<E> type, String value, String path) {
    try {
      return Enum.valueOf(type, value);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(
          path + ": '" + value + "' is not one of " + Arrays.toString(type.getEnumConstants()), e);
    }
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
