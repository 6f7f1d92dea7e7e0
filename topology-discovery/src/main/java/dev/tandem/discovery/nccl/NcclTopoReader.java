package dev.tandem.discovery.nccl;

import static dev.tandem.discovery.read.SafeXml.attr;
import static dev.tandem.discovery.read.SafeXml.children;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.NumaOnlyPairing;
import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.discovery.read.IdRanges;
import dev.tandem.discovery.read.NumaSet;
import dev.tandem.discovery.read.SafeXml;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.w3c.dom.Element;

/**
 * Reads an NCCL topology file ({@code <system version="1"><cpu numaid=…><pci busid=… class=…>}),
 * the format cloud vendors publish for VMs whose real PCIe tree is hidden.
 *
 * <p>Mapping: each {@code <cpu>} is a CPU domain ({@code numa:N}); each top-level {@code <pci>}
 * under it gets a host bridge of its own ({@code hostbridge:nccl:<busid>}) and, when it is a bridge
 * (class 0x0604), becomes the root port below it, so devices under one vendor switch are PIX and
 * devices under different switches of one CPU are NODE. Nested bridge {@code <pci>} elements are
 * bridges. A {@code <pci>} with class 0x0300/0x0302 is a GPU (id = bus id: these files carry no
 * UUIDs); one with a {@code <nic>} or a network class (0x02xx) is an HCA, one per {@code <net>} (id
 * = net name) or, without {@code <net>}, one named by its bus id. A file whose GPUs share no host
 * bridge with a NIC (a Grace node without Data Direct) gets {@link NumaOnlyPairing}'s note.
 */
final class NcclTopoReader {

  private final TopologyBuilder builder;
  private final String what;

  private NcclTopoReader(String nodeName, String what) {
    this.builder = new TopologyBuilder(nodeName, "nccl");
    this.what = what;
  }

  static Discovery read(String xml, String nodeName, String what) {
    return DiscoveryException.naming(what, () -> readNamed(xml, nodeName, what));
  }

  private static Discovery readNamed(String xml, String nodeName, String what) {
    Element root = SafeXml.parse(xml, what, NcclTopoReader::checkValues).getDocumentElement();
    if (!root.getTagName().equals("system")) {
      throw new DiscoveryException(
          what
              + " is not an NCCL topology file: its root element is <"
              + root.getTagName()
              + ">, expected <system>"
              + (root.getTagName().equals("topology")
                  ? " (this looks like hwloc XML: use --hwloc-xml)"
                  : ""));
    }
    NcclTopoReader reader = new NcclTopoReader(nodeName, what);
    List<Element> cpus = children(root, "cpu");
    for (int i = 0; i < cpus.size(); i++) {
      reader.cpu(cpus.get(i), i);
    }
    var machine = reader.builder.build();
    List<String> notes = new ArrayList<>();
    notes.add(
        "nccl: "
            + what
            + ": "
            + machine.gpus().size()
            + " GPUs, "
            + machine.hcas().size()
            + " NICs, "
            + cpus.size()
            + " CPU domains (vendor grouping; bus ids of switches are synthetic)");
    long loose = cpus.stream().mapToLong(c -> children(c, "nic").size()).sum();
    if (loose > 0) {
      notes.add(
          "nccl: "
              + loose
              + " <nic> element(s) directly under <cpu> have no PCI position and were left out");
    }
    NumaOnlyPairing.note(machine, "nccl").ifPresent(notes::add);
    notes.addAll(reader.builder.warnings());
    return new Discovery(machine, "nccl", notes, reader.builder.warnings());
  }

  /** Value ranges, checked before the DOM is built: a {@code <cpu>}'s NUMA node number. */
  private static void checkValues(String element, Map<String, String> attributes) {
    if (element.equals("cpu") && attributes.containsKey("numaid")) {
      IdRanges.numaNode("numaid", attributes.get("numaid"));
    }
  }

  private void cpu(Element cpu, int index) {
    String numaId = attr(cpu, "numaid");
    int numa = numaId == null ? index : IdRanges.numaNode("numaid", numaId);
    String domain = NumaSet.domainId(List.of(numa));
    builder.cpuDomain(domain, List.of(numa));
    for (Element pci : children(cpu, "pci")) {
      String host = "hostbridge:nccl:" + busId(pci);
      builder.hostBridge(host, domain);
      pci(pci, host, numa);
    }
  }

  private void pci(Element pci, String parent, int numa) {
    PciAddress address = address(pci);
    int classId = classId(pci);
    int vendor = hexOr(attr(pci, "vendor"));
    int device = hexOr(attr(pci, "device"));
    if (DeviceRules.isBridge(classId)) {
      builder.bridge(address, parent, vendor, device);
      String me = TopologyBuilder.bridgeId(address);
      children(pci, "pci").forEach(c -> pci(c, me, numa));
      return;
    }
    if (classId == 0x0302 || classId == 0x0300) {
      builder.device(
          Device.gpu(address.toString())
              .name(gpuName(pci))
              .address(address)
              .numaNode(numa)
              .parentId(parent)
              .vendorId(vendor)
              .deviceId(device)
              .build());
      return;
    }
    List<Element> nets =
        children(pci, "nic").stream().flatMap(n -> children(n, "net").stream()).toList();
    if (!nets.isEmpty()) {
      for (Element net : nets) {
        String name = net.getAttribute("name");
        HcaInfo info = HcaInfo.builder(name).rate(rate(attr(net, "speed"))).build();
        builder.device(
            Device.hca(name, info)
                .name(name)
                .address(address)
                .numaNode(numa)
                .parentId(parent)
                .vendorId(vendor)
                .deviceId(device)
                .build());
      }
    } else if ((classId >> 8) == 0x02) {
      builder.device(
          Device.hca(address.toString(), HcaInfo.builder(null).build())
              .address(address)
              .numaNode(numa)
              .parentId(parent)
              .vendorId(vendor)
              .deviceId(device)
              .build());
    } else {
      builder.endpoint(address, parent);
    }
  }

  private static String gpuName(Element pci) {
    List<Element> gpu = children(pci, "gpu");
    return gpu.isEmpty() || !gpu.get(0).hasAttribute("dev")
        ? null
        : "gpu" + gpu.get(0).getAttribute("dev");
  }

  private static String rate(String mbps) {
    if (mbps == null || mbps.isBlank()) {
      return null;
    }
    try {
      return Long.parseLong(mbps.trim()) / 1000 + " Gb/sec";
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private PciAddress address(Element pci) {
    String busid = attr(pci, "busid");
    try {
      return PciAddress.parse(busid);
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException(what + ": <pci busid=\"" + busid + "\">: " + e.getMessage(), e);
    }
  }

  private String busId(Element pci) {
    return address(pci).toString();
  }

  private int classId(Element pci) {
    String c = attr(pci, "class");
    if (c == null) {
      throw new DiscoveryException(
          what + ": <pci busid=\"" + attr(pci, "busid") + "\"> has no class attribute");
    }
    return DeviceRules.hex(c) >> 8;
  }

  private static int hexOr(String text) {
    if (text == null || text.isBlank()) {
      return -1;
    }
    int v = DeviceRules.hex(text);
    return v == 0xffff || v == 0 ? -1 : v;
  }
}
