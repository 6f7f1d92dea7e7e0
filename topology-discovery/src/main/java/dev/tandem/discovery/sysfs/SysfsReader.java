package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.NumaOnlyPairing;
import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.discovery.read.NumaSet;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Reads the PCIe tree, GPUs and HCAs from sysfs and procfs under a root directory.
 *
 * <ul>
 *   <li>PCI functions: {@code /sys/bus/pci/devices/*}, whose links into {@code
 *       /sys/devices/pciDDDD:BB/…} give the host bridge and the bridges above each function;
 *   <li>CPU domain of a host bridge: the NUMA nodes ({@code
 *       /sys/devices/system/node/nodeN/cpulist}) inside the {@code local_cpulist} of the functions
 *       below it, as hwloc decides; else their {@code numa_node};
 *   <li>HCAs: each function's ibverbs devices, uverbs devices, netdevs and PF, as {@link
 *       RdmaFunction} reads them ({@code <function>/infiniband/<ib>}, {@code
 *       <function>/infiniband_verbs/uverbsN}, {@code net/}, {@code physfn});
 *   <li>GPU ids: {@code /proc/driver/nvidia/gpus/<address>/information} (GPU UUID), AMD {@code
 *       unique_id}.
 * </ul>
 */
public final class SysfsReader {

  private static final Pattern HOST_BRIDGE =
      Pattern.compile("pci([0-9a-fA-F]{4}):([0-9a-fA-F]{2})");
  private static final Pattern ADDRESS =
      Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

  private final HostFiles files;
  private final String nodeName;
  private final List<String> skipped = new ArrayList<>();
  private final Map<Integer, List<Integer>> nodeCpus = new TreeMap<>();
  private final Map<PciAddress, Integer> numaNodes = new HashMap<>();
  private final Map<String, Function> dataDirectAt = new HashMap<>();

  /** One PCI function: where it is and what it is. */
  private record Function(
      PciAddress address,
      Path dir,
      String parentId,
      String hostBridge,
      int classId,
      int vendor,
      int device,
      int numaNode,
      List<Integer> localCpus,
      List<PciAddress> above) {

    /** Hangs the function off its nearest readable bridge above (or its host bridge). */
    Function placed(Map<PciAddress, Function> all) {
      String parent = hostBridge;
      for (PciAddress a : above) {
        Function f = all.get(a);
        if (f != null && DeviceRules.isBridge(f.classId())) {
          parent = TopologyBuilder.bridgeId(a);
        }
      }
      return new Function(
          address, dir, parent, hostBridge, classId, vendor, device, numaNode, localCpus, above);
    }
  }

  private SysfsReader(Path root, String nodeName) {
    this.files = new HostFiles(root);
    this.nodeName = nodeName;
  }

  public static Discovery read(Path root, String nodeName, List<String> priorNotes) {
    return read(root, nodeName, priorNotes, DataDirectTies.unavailable("libmlx5 not asked"));
  }

  /**
   * The tree under {@code root}, each mlx5 device that {@code ties} names placed where its Data
   * Direct function sits ({@link DataDirectClaims}), its own PCI address kept.
   */
  public static Discovery read(
      Path root, String nodeName, List<String> priorNotes, DataDirectTies ties) {
    if (!Files.isDirectory(root)) {
      throw new DiscoveryException("sysfs root " + root + " is not a directory");
    }
    return new SysfsReader(root, nodeName).read(priorNotes, ties);
  }

  private Discovery read(List<String> priorNotes, DataDirectTies ties) {
    List<String> notes = new ArrayList<>(priorNotes);
    Path bus = files.host("/sys/bus/pci/devices");
    if (!Files.isDirectory(bus)) {
      notes.add("sysfs: " + bus + " does not exist: no PCI devices");
      return new Discovery(Machine.empty(nodeName, "sysfs"), "sysfs", notes);
    }
    Map<PciAddress, Function> functions = new TreeMap<>();
    for (Path link : HostFiles.list(bus)) {
      Function f = function(link);
      if (f != null) {
        functions.put(f.address(), f);
      }
    }
    TopologyBuilder builder = new TopologyBuilder(nodeName, "sysfs");
    readNodeCpus();
    Map<String, PciAddress> dataDirect = dataDirect(functions, ties, notes);
    Map<String, List<Integer>> hostNuma = hostBridgeNuma(functions);
    Map<String, String> domains = new HashMap<>();
    for (var e : hostNuma.entrySet()) {
      String domain = NumaSet.domainId(e.getValue());
      if (!domains.containsValue(domain)) {
        builder.cpuDomain(domain, e.getValue());
      }
      domains.put(e.getKey(), domain);
      builder.hostBridge(e.getKey(), domain);
    }
    dataDirect.forEach((ib, at) -> dataDirectAt.put(ib, functions.get(at).placed(functions)));
    for (Function unplaced : functions.values()) {
      Function f = unplaced.placed(functions);
      List<Integer> numa = hostNuma.get(f.hostBridge());
      int own = cpuNode(f, notes);
      numaNodes.put(f.address(), own >= 0 ? own : numa.isEmpty() ? -1 : numa.get(0));
    }
    for (Function unplaced : functions.values()) {
      Function f = unplaced.placed(functions);
      add(builder, f, numaNodes.get(f.address()), RdmaFunction.ibDevices(f.dir()));
    }
    Machine m = builder.build();
    notes.add(
        "sysfs: "
            + files.root()
            + ": "
            + functions.size()
            + " PCI functions, "
            + m.gpus().size()
            + " GPUs, "
            + m.hcas().size()
            + " HCAs, NUMA nodes "
            + m.numaNodes());
    if (!skipped.isEmpty()) {
      notes.add("sysfs: unreadable PCI functions skipped: " + String.join(", ", skipped));
    }
    NumaOnlyPairing.note(m, "sysfs").ifPresent(notes::add);
    notes.addAll(builder.warnings());
    return new Discovery(m, "sysfs", notes, builder.warnings());
  }

  private void add(TopologyBuilder builder, Function f, int numaNode, List<String> ibNames) {
    if (DeviceRules.isBridge(f.classId())) {
      builder.bridge(f.address(), f.parentId(), f.vendor(), f.device());
    } else if (DeviceRules.isGpu(f.vendor(), f.classId(), "amdgpu".equals(driver(f.dir())))) {
      builder.device(gpu(f, numaNode));
    } else if (!ibNames.isEmpty()) {
      for (String name : ibNames) {
        builder.device(placed(at(f, numaNode, Device.hca(name, hca(name, f)).name(name))));
      }
    } else if (DeviceRules.isRdmaFunction(f.vendor(), f.device(), f.classId())) {
      builder.device(at(f, numaNode, Device.hca(f.address().toString(), hca(null, f))));
    } else {
      builder.endpoint(f.address(), f.parentId());
    }
  }

  /**
   * The HCA where its Data Direct function sits (that function's parent and NUMA node), its own PCI
   * address kept, when it has one; else as it is.
   */
  private Device placed(Device hca) {
    Function dd = dataDirectAt.get(hca.hca().ibDevice());
    if (dd == null) {
      return hca;
    }
    return hca.toBuilder()
        .parentId(dd.parentId())
        .numaNode(numaNodes.get(dd.address()))
        .hca(hca.hca().toBuilder().dataDirect(dd.address()).build())
        .build();
  }

  /** Each mlx5 device placed at its Data Direct function, by ibverbs name. */
  private static Map<String, PciAddress> dataDirect(
      Map<PciAddress, Function> functions, DataDirectTies ties, List<String> notes) {
    Set<PciAddress> dd = new TreeSet<>();
    Map<String, PciAddress> nics = new HashMap<>();
    for (Function f : functions.values()) {
      if (DeviceRules.isDataDirect(f.vendor(), f.device())) {
        dd.add(f.address());
      }
      RdmaFunction.ibDevices(f.dir()).forEach(ib -> nics.put(ib, f.address()));
    }
    return DataDirectClaims.placed(dd, nics, ties, notes);
  }

  /**
   * The function's NUMA node for alignment: its {@code numa_node}, unless that node has no CPUs (a
   * Grace GPU's memory, a memory expander): then the CPU node its {@code local_cpulist} covers,
   * with a note; -1 when there is none (the host bridge's node is used).
   */
  private int cpuNode(Function f, List<String> notes) {
    int n = f.numaNode();
    if (n < 0 || !nodeCpus.getOrDefault(n, List.of(0)).isEmpty()) {
      return n;
    }
    Integer cpuNode =
        nodeCpus.entrySet().stream()
            .filter(e -> !e.getValue().isEmpty() && f.localCpus().containsAll(e.getValue()))
            .map(Map.Entry::getKey)
            .findFirst()
            .orElse(null);
    notes.add(
        "sysfs: PCI "
            + f.address()
            + " names NUMA node "
            + n
            + ", which has no CPUs (GPU memory or a memory expander), as its numa_node: "
            + (cpuNode != null
                ? "its CPU node " + cpuNode + " (local_cpulist) is used for alignment"
                : "no CPU node holds its local_cpulist; its host bridge's CPU node is used"));
    return cpuNode == null ? -1 : cpuNode;
  }

  private Device gpu(Function f, int numaNode) {
    String id = f.address().toString();
    String model = null;
    if (f.vendor() == DeviceRules.NVIDIA) {
      NvidiaProc.Info info = NvidiaProc.read(files, f.address());
      if (info != null) {
        id = info.uuid() != null ? info.uuid() : id;
        model = info.model();
      }
    } else {
      String unique = HostFiles.firstLine(f.dir().resolve("unique_id"));
      id = unique != null && !unique.isBlank() ? unique : id;
    }
    return at(f, numaNode, Device.gpu(id).model(model));
  }

  /** The device as function {@code f}: its address, parent and PCI ids, on {@code numaNode}. */
  private static Device at(Function f, int numaNode, Device.Builder device) {
    return device
        .address(f.address())
        .numaNode(numaNode)
        .parentId(f.parentId())
        .vendorId(f.vendor())
        .deviceId(f.device())
        .build();
  }

  /**
   * Fills in what hwloc does not report (link layer, rate, uverbs device, VF) from {@code
   * /sys/class/infiniband} under {@code root}, for the HCAs of a machine found by hwloc.
   */
  public static Machine withHcaDetails(Machine m, Path root, List<String> notes) {
    SysfsReader reader = new SysfsReader(root, m.nodeName());
    List<String> filled = new ArrayList<>();
    List<Device> devices =
        m.devices().stream()
            .map(
                d -> {
                  if (d.kind() != DeviceKind.HCA || d.hca().ibDevice() == null) {
                    return d;
                  }
                  Path dir =
                      reader.files.follow(
                          reader.files.host(
                              "/sys/class/infiniband/" + d.hca().ibDevice() + "/device"));
                  if (dir == null) {
                    return d;
                  }
                  HcaInfo s = RdmaFunction.hca(d.hca().ibDevice(), dir);
                  HcaInfo h = d.hca();
                  filled.add(h.ibDevice());
                  HcaInfo merged =
                      s.toBuilder()
                          .linkLayer(first(s.linkLayer(), h.linkLayer()))
                          .portState(first(s.portState(), h.portState()))
                          .rate(first(s.rate(), h.rate()))
                          .nodeGuid(first(h.nodeGuid(), s.nodeGuid()))
                          .netdevs(h.netdevs().isEmpty() ? s.netdevs() : h.netdevs())
                          .build();
                  return d.toBuilder().hca(merged).build();
                })
            .toList();
    if (!filled.isEmpty()) {
      notes.add("sysfs: link layer, rate, uverbs device and VF of " + filled + " from " + root);
    }
    return new Machine(m.nodeName(), m.source(), m.pcie(), devices);
  }

  private static String first(String a, String b) {
    return a != null ? a : b;
  }

  private static HcaInfo hca(String name, Function f) {
    return RdmaFunction.hca(name, f.dir());
  }

  private Function function(Path link) {
    Path dir = files.follow(link);
    if (dir == null || !ADDRESS.matcher(link.getFileName().toString()).matches()) {
      return null;
    }
    List<String> parts = files.components(dir);
    int host = -1;
    for (int i = 0; i < parts.size(); i++) {
      if (HOST_BRIDGE.matcher(parts.get(i)).matches()) {
        host = i;
      }
    }
    PciAddress address = PciAddress.parse(link.getFileName().toString());
    String hostBridge;
    List<PciAddress> above = new ArrayList<>();
    if (host < 0) {
      hostBridge = String.format("hostbridge:%04x:%02x", address.domain(), address.bus());
    } else {
      var m = HOST_BRIDGE.matcher(parts.get(host));
      m.matches();
      hostBridge = "hostbridge:" + m.group(1).toLowerCase() + ":" + m.group(2).toLowerCase();
      for (int i = host + 1; i < parts.size() - 1; i++) {
        if (ADDRESS.matcher(parts.get(i)).matches()) {
          above.add(PciAddress.parse(parts.get(i)));
        }
      }
    }
    String cls = HostFiles.firstLine(dir.resolve("class"));
    String vendor = HostFiles.firstLine(dir.resolve("vendor"));
    String device = HostFiles.firstLine(dir.resolve("device"));
    if (cls == null || vendor == null || device == null) {
      skipped.add(address + " (no readable class, vendor or device file)");
      return null;
    }
    String numa = HostFiles.firstLine(dir.resolve("numa_node"));
    try {
      return new Function(
          address,
          dir,
          hostBridge,
          hostBridge,
          DeviceRules.hex(cls) >> 8,
          DeviceRules.hex(vendor),
          DeviceRules.hex(device),
          numa == null || numa.isEmpty() ? -1 : Integer.parseInt(numa),
          NumaSet.parseList(HostFiles.firstLine(dir.resolve("local_cpulist"))),
          above);
    } catch (NumberFormatException e) {
      skipped.add(address + " (" + e.getMessage() + ")");
      return null;
    }
  }

  /**
   * The CPU domain of each host bridge, as hwloc's package rule gives it: the NUMA nodes of the
   * package that holds the {@code local_cpulist} of the functions below it; the NUMA nodes inside
   * that list when the CPUs span packages or their packages are unknown; else {@code numa_node}.
   */
  private Map<String, List<Integer>> hostBridgeNuma(Map<PciAddress, Function> functions) {
    Map<String, List<Integer>> out = new LinkedHashMap<>();
    for (Function f : functions.values()) {
      if (!out.containsKey(f.hostBridge())) {
        out.put(f.hostBridge(), domainNuma(f));
      }
    }
    return out;
  }

  /** The NUMA nodes and their CPUs ({@code /sys/devices/system/node/nodeN/cpulist}). */
  private void readNodeCpus() {
    for (Path node : HostFiles.list(files.host("/sys/devices/system/node"))) {
      String n = node.getFileName().toString();
      if (n.matches("node[0-9]+")) {
        nodeCpus.put(
            Integer.parseInt(n.substring(4)),
            NumaSet.parseList(HostFiles.firstLine(node.resolve("cpulist"))));
      }
    }
  }

  private List<Integer> domainNuma(Function f) {
    List<Integer> numa = new ArrayList<>();
    Integer pkg = packageOf(f.localCpus());
    nodeCpus.forEach(
        (node, cpus) -> {
          if (cpus.isEmpty()) {
            return;
          }
          boolean in = pkg != null ? pkg.equals(packageOf(cpus)) : f.localCpus().containsAll(cpus);
          if (in) {
            numa.add(node);
          }
        });
    if (numa.isEmpty()
        && f.numaNode() >= 0
        && !nodeCpus.getOrDefault(f.numaNode(), List.of(0)).isEmpty()) {
      numa.add(f.numaNode());
    }
    return numa;
  }

  /** The one package all these CPUs belong to, or null (none known, or several). */
  private Integer packageOf(List<Integer> cpus) {
    Integer pkg = null;
    for (int cpu : cpus) {
      String id =
          HostFiles.firstLine(
              files.host("/sys/devices/system/cpu/cpu" + cpu + "/topology/physical_package_id"));
      if (id == null || id.isEmpty()) {
        return null;
      }
      int p = Integer.parseInt(id);
      if (pkg != null && pkg != p) {
        return null;
      }
      pkg = p;
    }
    return pkg;
  }

  private String driver(Path dir) {
    Path d = files.follow(dir.resolve("driver"));
    return d == null ? null : d.getFileName().toString();
  }
}
