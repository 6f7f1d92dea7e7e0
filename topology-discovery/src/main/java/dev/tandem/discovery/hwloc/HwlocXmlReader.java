package dev.tandem.discovery.hwloc;

import static dev.tandem.discovery.read.SafeXml.attr;
import static dev.tandem.discovery.read.SafeXml.children;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.discovery.read.NumaSet;
import dev.tandem.discovery.read.SafeXml;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * Turns an hwloc 2.x XML export (the text libhwloc writes with {@code
 * hwloc_topology_export_xmlbuffer}) into a machine, through {@link TopologyBuilder}.
 *
 * <p>CPU domain of a host bridge: the package above the non-I/O object hwloc attached it to (the
 * object whose CPU set matches the PCI locality: a sub-NUMA group, a package, the whole machine),
 * or that object when no package is above it; named by its NUMA nodes. A device's NUMA node is the
 * first NUMA node of the attaching object. Host bridges are {@code hostbridge:DDDD:BB} (domain and
 * first bus).
 */
public final class HwlocXmlReader {

  /** hwloc's bridge_pci of a host bridge: {@code 0000:[10-1f]}, the domain and its bus range. */
  private static final Pattern BRIDGE_PCI =
      Pattern.compile("([0-9a-fA-F]{4}):\\[([0-9a-fA-F]{2})-[0-9a-fA-F]{2}\\]");

  private static final Set<String> IO_TYPES = Set.of("Bridge", "PCIDev", "OSDev");

  /** hwloc 2.x {@code hwloc_obj_osdev_type_e}: a network interface. */
  static final int OSDEV_NETWORK = 2;

  /** hwloc 2.x {@code hwloc_obj_osdev_type_e}: an OpenFabrics (ibverbs) device. */
  static final int OSDEV_OPENFABRICS = 3;

  private final TopologyBuilder builder;
  private final Set<String> domains = new HashSet<>();
  private final Set<String> hostBridges = new HashSet<>();

  /**
   * Device NUMA node below each host bridge and bridge: the first NUMA node of the attaching
   * object.
   */
  private final Map<String, Integer> numaOf = new LinkedHashMap<>();

  /** NUMA nodes without CPUs (a Grace GPU's HBM): never a CPU domain, never a device's node. */
  private final Set<Integer> memoryOnly = new HashSet<>();

  /** The ConnectX-8 Data Direct functions ({@code 15b3:2100}) the tree holds. */
  private final List<PciAddress> dataDirect = new ArrayList<>();

  private HwlocXmlReader(String nodeName, String source) {
    this.builder = new TopologyBuilder(nodeName, source);
  }

  /**
   * @param xml the exported XML text
   * @param what names the input in errors (the file, or "this machine")
   */
  public static Discovery read(String xml, String nodeName, String source, String what) {
    return DiscoveryException.naming(what, () -> readNamed(xml, nodeName, source, what));
  }

  private static Discovery readNamed(String xml, String nodeName, String source, String what) {
    Document doc = SafeXml.parse(xml, what, HwlocValues.RULE);
    Element root = doc.getDocumentElement();
    if (!root.getTagName().equals("topology")) {
      throw new DiscoveryException(
          what + " is not an hwloc topology (root element <" + root.getTagName() + ">)");
    }
    HwlocXmlReader reader = new HwlocXmlReader(nodeName, source);
    for (Element top : children(root, "object")) {
      reader.memoryOnly(top, true);
    }
    for (Element top : children(root, "object")) {
      reader.walkNormal(top, new ArrayList<>());
    }
    var machine = reader.builder.build();
    List<String> notes = new ArrayList<>();
    notes.add(
        source
            + ": "
            + what
            + ": "
            + machine.gpus().size()
            + " GPUs, "
            + machine.hcas().size()
            + " HCAs, "
            + machine.switches().size()
            + " PCIe switches, NUMA nodes "
            + machine.numaNodes());
    if (!reader.dataDirect.isEmpty()) {
      notes.add(
          source
              + ": Data Direct functions (15b3:2100) "
              + reader.dataDirect
              + ": hwloc's tree does not say which NIC each serves, so the NICs stay at their own"
              + " PCI address (live discovery reads sysfs when libmlx5 ties them)");
    }
    notes.addAll(reader.builder.warnings());
    return new Discovery(machine, source, notes, reader.builder.warnings());
  }

  /** Walks CPU-side objects; {@code ancestors} are the non-I/O objects above, nearest last. */
  private void walkNormal(Element obj, List<Element> ancestors) {
    List<Element> path = new ArrayList<>(ancestors);
    path.add(obj);
    for (Element child : children(obj, "object")) {
      String type = child.getAttribute("type");
      if (IO_TYPES.contains(type)) {
        walkIo(child, null, path);
      } else {
        walkNormal(child, path);
      }
    }
  }

  /** Walks an I/O object; {@code parentId} is null right below a CPU-side object. */
  private void walkIo(Element obj, String parentId, List<Element> cpuPath) {
    String type = obj.getAttribute("type");
    if (type.equals("OSDev")) {
      return;
    }
    if (type.equals("Bridge") && "0".equals(bridgeUpstream(obj))) {
      String id = hostBridgeId(attr(obj, "bridge_pci"), null);
      addHostBridge(id, cpuPath);
      children(obj, "object").forEach(c -> walkIo(c, id, cpuPath));
      return;
    }
    PciAddress address = PciAddress.parse(attr(obj, "pci_busid"));
    String parent =
        parentId != null ? parentId : addHostBridge(hostBridgeId(null, address), cpuPath);
    PciType pci = PciType.parse(attr(obj, "pci_type"));
    if (type.equals("Bridge") || DeviceRules.isBridge(pci.classId())) {
      builder.bridge(address, parent, pci.vendor(), pci.device());
      String me = TopologyBuilder.bridgeId(address);
      numaOf.put(me, numaOf.getOrDefault(parent, -1));
      children(obj, "object").forEach(c -> walkIo(c, me, cpuPath));
      return;
    }
    pciFunction(obj, address, pci, parent);
    children(obj, "object").stream()
        .filter(c -> !c.getAttribute("type").equals("OSDev"))
        .forEach(c -> walkIo(c, parent, cpuPath));
  }

  private void pciFunction(Element obj, PciAddress address, PciType pci, String parent) {
    List<Element> osdevs =
        children(obj, "object").stream()
            .filter(c -> c.getAttribute("type").equals("OSDev"))
            .toList();
    int numa = numaOf.getOrDefault(parent, -1);
    boolean amdCompute = osdevs.stream().anyMatch(o -> isAmdCompute(o));
    List<Element> verbs = osdevs.stream().filter(o -> osdevType(o) == OSDEV_OPENFABRICS).toList();
    if (DeviceRules.isGpu(pci.vendor(), pci.classId(), amdCompute)) {
      builder.device(gpu(osdevs, address, pci, parent, numa));
    } else if (!verbs.isEmpty()) {
      List<String> netdevs =
          osdevs.stream()
              .filter(o -> osdevType(o) == OSDEV_NETWORK)
              .map(o -> o.getAttribute("name"))
              .toList();
      for (Element v : verbs) {
        builder.device(hca(v, netdevs, address, pci, parent, numa));
      }
    } else if (DeviceRules.isRdmaFunction(pci.vendor(), pci.device(), pci.classId())) {
      List<String> netdevs =
          osdevs.stream()
              .filter(o -> osdevType(o) == OSDEV_NETWORK)
              .map(o -> o.getAttribute("name"))
              .toList();
      HcaInfo info = HcaInfo.builder(null).netdevs(netdevs).build();
      builder.device(
          Device.hca(address.toString(), info)
              .address(address)
              .numaNode(numa)
              .parentId(parent)
              .vendorId(pci.vendor())
              .deviceId(pci.device())
              .build());
    } else {
      if (DeviceRules.isDataDirect(pci.vendor(), pci.device())) {
        dataDirect.add(address);
      }
      builder.endpoint(address, parent);
    }
  }

  private Device gpu(
      List<Element> osdevs, PciAddress address, PciType pci, String parent, int numa) {
    String uuid = null;
    String model = null;
    for (Element o : osdevs) {
      Map<String, String> info = infos(o);
      uuid = uuid != null ? uuid : info.getOrDefault("NVIDIAUUID", info.get("AMDUUID"));
      model = model != null ? model : info.get("GPUModel");
    }
    String name = GpuNames.pick(osdevs.stream().map(o -> o.getAttribute("name")).toList());
    String id = uuid != null && !uuid.isBlank() ? uuid : address.toString();
    return Device.gpu(id)
        .name(name)
        .address(address)
        .numaNode(numa)
        .parentId(parent)
        .vendorId(pci.vendor())
        .deviceId(pci.device())
        .model(model)
        .build();
  }

  private Device hca(
      Element verbs,
      List<String> netdevs,
      PciAddress address,
      PciType pci,
      String parent,
      int numa) {
    Map<String, String> info = infos(verbs);
    String name = verbs.getAttribute("name");
    HcaInfo hca =
        HcaInfo.builder(name)
            .linkLayer(info.get("Port1LinkLayer"))
            .portState(DeviceRules.portState(info.get("Port1State")))
            .nodeGuid(info.get("NodeGUID"))
            .netdevs(netdevs)
            .build();
    return Device.hca(name, hca)
        .name(name)
        .address(address)
        .numaNode(numa)
        .parentId(parent)
        .vendorId(pci.vendor())
        .deviceId(pci.device())
        .build();
  }

  private String addHostBridge(String id, List<Element> cpuPath) {
    if (hostBridges.add(id)) {
      List<Integer> numa = numaNodes(domainObject(cpuPath));
      String domain = NumaSet.domainId(numa);
      if (domains.add(domain)) {
        builder.cpuDomain(domain, numa);
      }
      builder.hostBridge(id, domain);
      List<Integer> local = localNuma(cpuPath);
      numaOf.put(id, local.isEmpty() ? -1 : local.get(0));
    }
    return id;
  }

  /**
   * The CPU domain of a host bridge: the package above the object hwloc attached it to (on SNC and
   * NPS machines that object is a sub-NUMA group; the shared README counts devices of one package
   * as NODE), else the object itself.
   */
  private Element domainObject(List<Element> cpuPath) {
    for (int i = cpuPath.size() - 1; i >= 0; i--) {
      if (cpuPath.get(i).getAttribute("type").equals("Package")) {
        return cpuPath.get(i);
      }
    }
    for (int i = cpuPath.size() - 1; i >= 0; i--) {
      if (!numaNodes(cpuPath.get(i)).isEmpty()) {
        return cpuPath.get(i);
      }
    }
    return cpuPath.get(0);
  }

  /**
   * The NUMA nodes of the object a host bridge is attached to (or the nearest one above with any).
   */
  private List<Integer> localNuma(List<Element> cpuPath) {
    for (int i = cpuPath.size() - 1; i >= 0; i--) {
      List<Integer> numa = numaNodes(cpuPath.get(i));
      if (!numa.isEmpty()) {
        return numa;
      }
    }
    return List.of();
  }

  private List<Integer> numaNodes(Element e) {
    List<Integer> fromSet = NumaSet.parseBitmap(attr(e, "nodeset"));
    if (fromSet.isEmpty()) {
      List<Integer> below = new ArrayList<>();
      collectNuma(e, below);
      fromSet = below.stream().distinct().sorted().toList();
    }
    return fromSet.stream().filter(n -> !memoryOnly.contains(n)).toList();
  }

  /**
   * Records the NUMA nodes without CPUs below {@code e}: hwloc 2.11 and later mark a GPU's memory
   * {@code subtype="GPUMemory"}; older ones attach such a node to the machine itself while the
   * nodes with CPUs hang below a package or group (a NUMA node's cpuset is its parent's, so the
   * place it hangs is what says it has no CPUs of its own).
   */
  private void memoryOnly(Element e, boolean machine) {
    List<Element> kids = children(e, "object");
    boolean numaBelow = machine && kids.stream().anyMatch(k -> hasNumaBelow(k));
    for (Element c : kids) {
      String type = c.getAttribute("type");
      if (type.equals("NUMANode") && c.hasAttribute("os_index")) {
        if ("GPUMemory".equals(c.getAttribute("subtype")) || numaBelow) {
          memoryOnly.add(Integer.parseInt(c.getAttribute("os_index")));
        }
      } else if (!IO_TYPES.contains(type)) {
        memoryOnly(c, false);
      }
    }
  }

  private static boolean hasNumaBelow(Element e) {
    if (e.getAttribute("type").equals("NUMANode") || IO_TYPES.contains(e.getAttribute("type"))) {
      return false;
    }
    for (Element c : children(e, "object")) {
      if (c.getAttribute("type").equals("NUMANode") || hasNumaBelow(c)) {
        return true;
      }
    }
    return false;
  }

  private static void collectNuma(Element e, List<Integer> out) {
    for (Element c : children(e, "object")) {
      if (c.getAttribute("type").equals("NUMANode") && c.hasAttribute("os_index")) {
        out.add(Integer.parseInt(c.getAttribute("os_index")));
      }
      if (!IO_TYPES.contains(c.getAttribute("type"))) {
        collectNuma(c, out);
      }
    }
  }

  static String hostBridgeId(String bridgePci, PciAddress below) {
    Matcher m = bridgePci == null ? null : BRIDGE_PCI.matcher(bridgePci);
    if (m != null && m.lookingAt()) {
      return "hostbridge:" + m.group(1) + ":" + m.group(2);
    }
    if (below == null) {
      throw new DiscoveryException(
          "a host Bridge object's bridge_pci '"
              + bridgePci
              + "' is not domain:[first-last bus] (such as 0000:[10-1f])");
    }
    return String.format("hostbridge:%04x:%02x", below.domain(), below.bus());
  }

  private static String bridgeUpstream(Element obj) {
    String t = attr(obj, "bridge_type");
    if (t == null) {
      return null;
    }
    int dash = t.indexOf('-');
    if (dash < 0) {
      throw new DiscoveryException(
          "bridge_type '" + t + "' of a Bridge object is not upstream-downstream (such as 0-1)");
    }
    return t.substring(0, dash);
  }

  static int osdevType(Element o) {
    String t = attr(o, "osdev_type");
    return t == null ? -1 : Integer.parseInt(t.trim());
  }

  private static boolean isAmdCompute(Element o) {
    String subtype = attr(o, "subtype");
    String name = o.getAttribute("name");
    return "RSMI".equals(subtype)
        || "OpenCL".equals(subtype)
        || name.startsWith("rsmi")
        || name.startsWith("opencl");
  }

  static Map<String, String> infos(Element o) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Element i : children(o, "info")) {
      out.putIfAbsent(i.getAttribute("name"), i.getAttribute("value"));
    }
    return out;
  }
}
