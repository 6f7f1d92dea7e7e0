package dev.tandem.api.dra;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The attributes of each device of one node's tree ({@link DraAttributes}): the standard PCI and
 * NUMA ones, Tandem's locality groups ({@link LocalityAttributes}), the kind, and what a GPU or an
 * HCA adds. An attribute whose value is unknown is left out rather than published empty.
 */
public final class DeviceAttributes {

  /** A host bridge as discovery names it from sysfs or hwloc: domain and first bus. */
  private static final Pattern HOST_BRIDGE =
      Pattern.compile("hostbridge:([0-9a-f]{4}):([0-9a-f]{2})");

  private static final Pattern LEADING_NUMBER = Pattern.compile("\\s*(\\d+)(?:\\s|$|[^.\\d])");

  private final Map<String, PcieNode> nodes = new HashMap<>();

  public DeviceAttributes(Machine machine) {
    machine.pcie().forEach(n -> nodes.put(n.id(), n));
  }

  public SortedMap<String, AttributeValue> of(Device device) {
    SortedMap<String, AttributeValue> out = new TreeMap<>();
    pcieRoot(device).ifPresent(v -> out.put(DraAttributes.PCIE_ROOT, AttributeValue.text(v)));
    if (device.address() != null) {
      out.put(DraAttributes.PCI_BUS_ID, AttributeValue.text(device.address().toString()));
    }
    if (device.numaNode() >= 0) {
      out.put(DraAttributes.NUMA_NODE, AttributeValue.number(device.numaNode()));
    }
    LocalityAttributes.of(device, nodes).forEach((name, value) -> out.put(name, text(value)));
    if (device.kind() == DeviceKind.GPU) {
      out.put(DraAttributes.KIND, text("gpu"));
      gpu(device, out);
    } else {
      out.put(DraAttributes.KIND, text("hca"));
      hca(device.hca(), out);
    }
    return out;
  }

  private static void gpu(Device gpu, Map<String, AttributeValue> out) {
    if (gpu.id().startsWith("GPU-")) {
      out.put(DraAttributes.UUID, text(gpu.id()));
    }
    if (gpu.model() != null && !gpu.model().isBlank()) {
      out.put(DraAttributes.PRODUCT, text(gpu.model()));
    }
  }

  private static void hca(HcaInfo hca, Map<String, AttributeValue> out) {
    put(out, DraAttributes.IB_DEVICE, hca.ibDevice());
    if (!hca.netdevs().isEmpty()) {
      out.put(DraAttributes.NETDEV, text(String.join(",", hca.netdevs())));
    }
    put(out, DraAttributes.LINK_LAYER, hca.linkLayer());
    put(out, DraAttributes.PORT_STATE, portState(hca.portState()));
    put(out, DraAttributes.RATE, hca.rate());
    gbps(hca.rate()).ifPresent(g -> out.put(DraAttributes.RATE_GBPS, AttributeValue.number(g)));
    if (hca.dataDirect() != null) {
      out.put(DraAttributes.DATA_DIRECT, text(hca.dataDirect().toString()));
    }
    if (hca.rail() != null) {
      out.put(DraAttributes.RAIL, AttributeValue.number(hca.rail()));
    }
  }

  /**
   * {@code pci<domain>:<bus>} of the device's host bridge: the directory under {@code /sys/devices}
   * that the standard attribute's helper reads. Empty when the host bridge is not a real one (a
   * VM's NCCL topology file).
   */
  Optional<String> pcieRoot(Device device) {
    return LocalityIndex.groupNode(Locality.PHB, device, nodes)
        .map(n -> HOST_BRIDGE.matcher(n.id()))
        .filter(Matcher::matches)
        .map(m -> "pci" + m.group(1) + ":" + m.group(2));
  }

  /** {@code 4: ACTIVE} (sysfs) and {@code ACTIVE} (ibverbs) both give {@code ACTIVE}. */
  static String portState(String state) {
    if (state == null) {
      return null;
    }
    int colon = state.indexOf(':');
    return colon < 0 ? state.trim() : state.substring(colon + 1).trim();
  }

  /** The whole number of Gb/s a rate starts with ({@code 400 Gb/sec (4X NDR)}); empty otherwise. */
  static Optional<Long> gbps(String rate) {
    if (rate == null) {
      return Optional.empty();
    }
    Matcher m = LEADING_NUMBER.matcher(rate);
    return m.lookingAt() ? Optional.of(Long.parseLong(m.group(1))) : Optional.empty();
  }

  private static void put(Map<String, AttributeValue> out, String name, String value) {
    if (value != null && !value.isBlank()) {
      out.put(name, text(value));
    }
  }

  private static AttributeValue text(String value) {
    return AttributeValue.text(value);
  }
}
