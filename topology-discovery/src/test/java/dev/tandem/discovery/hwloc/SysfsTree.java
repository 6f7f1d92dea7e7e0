package dev.tandem.discovery.hwloc;

import static dev.tandem.discovery.read.SafeXml.attr;
import static dev.tandem.discovery.read.SafeXml.children;

import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.discovery.read.NumaSet;
import dev.tandem.discovery.read.SafeXml;
import dev.tandem.topology.model.PciAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.w3c.dom.Element;

/**
 * Test utility: renders what libhwloc exported for a machine as the sysfs/procfs tree Linux would
 * show for it, so that the sysfs source can be checked against the hwloc source on the same
 * machine.
 *
 * <p>Writes {@code sys/devices/pciDDDD:BB/<bridge>/…/<function>} directories with {@code class},
 * {@code vendor}, {@code device}, {@code numa_node} and {@code local_cpulist}; the {@code
 * sys/bus/pci/devices/<address>} links; {@code sys/devices/system/node/nodeN/cpulist} and {@code
 * sys/devices/system/cpu/cpuN/topology/physical_package_id}; the function's {@code
 * infiniband/<hca>} (device link, node_guid, ports/1/state) and {@code
 * infiniband_verbs/uverbsN/ibdev}, linked from {@code sys/class/infiniband} and {@code
 * sys/class/infiniband_verbs} as the kernel links them; netdevs under the function's {@code net/};
 * {@code proc/driver/nvidia/gpus/<address>/information} with the GPU UUID and model; AMD {@code
 * unique_id} and an {@code amdgpu} driver link.
 */
final class SysfsTree {

  private static final Set<String> IO = Set.of("Bridge", "PCIDev", "OSDev");
  private final Path root;
  private int uverbs;

  private SysfsTree(Path root) {
    this.root = root;
  }

  /** Renders an hwloc XML export under {@code root}. */
  static void render(String hwlocExport, Path root) {
    Element top = SafeXml.parse(hwlocExport, "hwloc export").getDocumentElement();
    SysfsTree tree = new SysfsTree(root);
    for (Element obj : children(top, "object")) {
      tree.cpuSide(obj, null, new ArrayList<>());
    }
  }

  private void cpuSide(Element obj, String pkg, List<Element> path) {
    String type = obj.getAttribute("type");
    String here = type.equals("Package") ? obj.getAttribute("os_index") : pkg;
    if (type.equals("NUMANode")) {
      write(
          root.resolve("sys/devices/system/node/node" + obj.getAttribute("os_index") + "/cpulist"),
          NumaSet.toList(NumaSet.parseBitmap(attr(obj, "cpuset"))));
    }
    if (type.equals("PU") && here != null) {
      write(
          root.resolve(
              "sys/devices/system/cpu/cpu"
                  + obj.getAttribute("os_index")
                  + "/topology/physical_package_id"),
          here);
    }
    List<Element> nested = new ArrayList<>(path);
    nested.add(obj);
    for (Element c : children(obj, "object")) {
      if (IO.contains(c.getAttribute("type"))) {
        io(c, null, obj);
      } else {
        cpuSide(c, here, nested);
      }
    }
  }

  /** {@code dir} is the sysfs directory of the parent bridge, null right below the CPU side. */
  private void io(Element obj, Path dir, Element attach) {
    String type = obj.getAttribute("type");
    if (type.equals("OSDev")) {
      return;
    }
    String bt = attr(obj, "bridge_type");
    if (bt != null && bt.startsWith("0")) {
      String id = HwlocXmlReader.hostBridgeId(attr(obj, "bridge_pci"), null);
      Path host = root.resolve("sys/devices/pci" + id.substring("hostbridge:".length()));
      children(obj, "object").forEach(c -> io(c, host, attach));
      return;
    }
    String busid = attr(obj, "pci_busid");
    var address = PciAddress.parse(busid);
    Path parent =
        dir != null
            ? dir
            : root.resolve(
                "sys/devices/" + String.format("pci%04x:%02x", address.domain(), address.bus()));
    Path me = parent.resolve(address.toString());
    PciType pci = PciType.parse(attr(obj, "pci_type"));
    write(me.resolve("class"), String.format("0x%04x00", pci.classId()));
    write(me.resolve("vendor"), String.format("0x%04x", pci.vendor()));
    write(me.resolve("device"), String.format("0x%04x", pci.device()));
    List<Integer> numa = NumaSet.parseBitmap(attr(attach, "nodeset"));
    write(me.resolve("numa_node"), numa.isEmpty() ? "-1" : Integer.toString(numa.get(0)));
    write(me.resolve("local_cpulist"), NumaSet.toList(NumaSet.parseBitmap(attr(attach, "cpuset"))));
    link(root.resolve("sys/bus/pci/devices/" + address), me);
    for (Element c : children(obj, "object")) {
      if (c.getAttribute("type").equals("OSDev")) {
        osdev(c, me, address.toString());
      }
    }
    Path childDir = type.equals("Bridge") ? me : parent;
    children(obj, "object").stream()
        .filter(c -> !c.getAttribute("type").equals("OSDev"))
        .forEach(c -> io(c, childDir, attach));
  }

  private void osdev(Element o, Path function, String address) {
    String name = o.getAttribute("name");
    Map<String, String> info = HwlocXmlReader.infos(o);
    switch (HwlocXmlReader.osdevType(o)) {
      case HwlocXmlReader.OSDEV_OPENFABRICS -> {
        Path ib = function.resolve("infiniband/" + name);
        mkdirs(ib);
        link(ib.resolve("device"), function);
        link(root.resolve("sys/class/infiniband/" + name), ib);
        if (info.containsKey("NodeGUID")) {
          write(ib.resolve("node_guid"), info.get("NodeGUID"));
        }
        if (info.containsKey("Port1State")) {
          String state = info.get("Port1State");
          write(ib.resolve("ports/1/state"), state + ": " + DeviceRules.portState(state));
        }
        Path verbs = function.resolve("infiniband_verbs/uverbs" + uverbs++);
        write(verbs.resolve("ibdev"), name);
        link(root.resolve("sys/class/infiniband_verbs/" + verbs.getFileName()), verbs);
      }
      case HwlocXmlReader.OSDEV_NETWORK -> mkdirs(function.resolve("net/" + name));
      default -> gpuInfo(o, name, info, function, address);
    }
  }

  private void gpuInfo(
      Element o, String name, Map<String, String> info, Path function, String address) {
    if (info.containsKey("NVIDIAUUID")) {
      Path f = root.resolve("proc/driver/nvidia/gpus/" + address + "/information");
      write(
          f,
          "Model: \t\t "
              + info.getOrDefault("GPUModel", "NVIDIA GPU")
              + "\nGPU UUID: \t "
              + info.get("NVIDIAUUID")
              + "\nBus Location: \t "
              + address
              + "\n");
    }
    if (info.containsKey("AMDUUID")) {
      write(function.resolve("unique_id"), info.get("AMDUUID"));
    }
    if (name.startsWith("rsmi") || name.startsWith("opencl") || "RSMI".equals(attr(o, "subtype"))) {
      Path driver = root.resolve("sys/bus/pci/drivers/amdgpu");
      mkdirs(driver);
      if (!Files.exists(function.resolve("driver"), LinkOption.NOFOLLOW_LINKS)) {
        link(function.resolve("driver"), driver);
      }
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text.endsWith("\n") ? text : text + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void mkdirs(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A relative symbolic link, as sysfs has them. */
  private static void link(Path link, Path target) {
    try {
      Files.createDirectories(link.getParent());
      Files.createSymbolicLink(link, link.getParent().relativize(target));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
