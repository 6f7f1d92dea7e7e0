package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.PciAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The one reader of what the kernel shows of a PCI function's RDMA side, for every source that
 * reads this node: the ibverbs devices its RDMA driver registered ({@code <function>/infiniband/
 * <ib>}, with {@code ports/1/state}, {@code link_layer}, {@code rate} and {@code node_guid}), their
 * uverbs character devices ({@code <function>/infiniband_verbs/uverbsN/ibdev}: the kernel gives the
 * uverbs device the ibverbs device's parent), its netdevs ({@code <function>/net/}) and, for an
 * SR-IOV VF, its PF ({@code physfn}). A function whose RDMA driver is not loaded has no {@code
 * infiniband/}: no ibverbs name.
 */
final class RdmaFunction {

  private static final Pattern ADDRESS =
      Pattern.compile("[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");

  private final HostFiles files;

  RdmaFunction(HostFiles files) {
    this.files = files;
  }

  /** The function's directory ({@code /sys/bus/pci/devices/<address>} followed); null if absent. */
  Path directory(PciAddress address) {
    return files.follow(files.host("/sys/bus/pci/devices/" + address));
  }

  /** The ibverbs names the function's RDMA driver registered, sorted; empty without the driver. */
  static List<String> ibDevices(Path function) {
    return HostFiles.list(function.resolve("infiniband")).stream()
        .map(p -> p.getFileName().toString())
        .toList();
  }

  /**
   * The function's RDMA attributes: of the ibverbs device {@code ibDevice}, or without a name (a
   * function whose RDMA driver is not loaded: netdevs and VF only) when it is null.
   */
  static HcaInfo hca(String ibDevice, Path function) {
    List<String> netdevs =
        HostFiles.list(function.resolve("net")).stream()
            .map(p -> p.getFileName().toString())
            .toList();
    Path physfn = function.resolve("physfn");
    boolean vf = Files.isSymbolicLink(physfn);
    PciAddress pf = physicalFunction(physfn);
    HcaInfo.Builder hca =
        HcaInfo.builder(ibDevice).netdevs(netdevs).virtualFunction(vf).physicalFunction(pf);
    if (ibDevice == null) {
      return hca.build();
    }
    Path ib = function.resolve("infiniband").resolve(ibDevice);
    Path port = ib.resolve("ports/1");
    return hca.linkLayer(HostFiles.firstLine(port.resolve("link_layer")))
        .portState(DeviceRules.portState(HostFiles.firstLine(port.resolve("state"))))
        .rate(HostFiles.firstLine(port.resolve("rate")))
        .nodeGuid(HostFiles.firstLine(ib.resolve("node_guid")))
        .uverbs(uverbs(ibDevice, function))
        .build();
  }

  /** The function's {@code numa_node}; -1 when absent, unreadable or not a number. */
  static int numaNode(Path function) {
    String numa = HostFiles.firstLine(function.resolve("numa_node"));
    try {
      return numa == null || numa.isEmpty() ? -1 : Integer.parseInt(numa);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String uverbs(String ibDevice, Path function) {
    for (Path dir : HostFiles.list(function.resolve("infiniband_verbs"))) {
      if (ibDevice.equals(HostFiles.firstLine(dir.resolve("ibdev")))) {
        return dir.getFileName().toString();
      }
    }
    return null;
  }

  /**
   * The PF a {@code physfn} link names (its last component), even when the link cannot be followed.
   */
  private static PciAddress physicalFunction(Path physfn) {
    try {
      if (!Files.isSymbolicLink(physfn)) {
        return null;
      }
      String last = Files.readSymbolicLink(physfn).getFileName().toString();
      return ADDRESS.matcher(last).matches() ? PciAddress.parse(last) : null;
    } catch (IOException e) {
      return null;
    }
  }
}
