package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The names this node's kernel gives the devices an NCCL topology file places, read by bus id under
 * the host root: the names the kubelet will report. The file gives the grouping; each NIC's
 * function gives its ibverbs names, uverbs devices, netdevs and PF ({@link RdmaFunction}), and
 * every device's function its {@code numa_node} (what the kubelet's Topology Manager compares) and
 * PCI vendor and device when the file has none.
 *
 * <p>A NIC function with ibverbs devices becomes one HCA per ibverbs name, whatever {@code <net
 * name>} the file gives (a note says when the two differ). A NIC function without one (its RDMA
 * driver is not loaded, or the file names a function this node does not have) becomes one HCA named
 * by its bus id and without an ibverbs name, as on bare metal: the caller marks it unhealthy
 * ({@code DriverlessHcas}) and the device plugin does not offer it.
 */
public final class KernelNames {

  private final RdmaFunction rdma;
  private final String what;
  private final List<String> notes;

  private KernelNames(Path root, String what, List<String> notes) {
    this.rdma = new RdmaFunction(new HostFiles(root));
    this.what = what;
    this.notes = notes;
  }

  /**
   * @param what the file, as notes name it
   * @param notes where to add what differs between the file and the node
   */
  public static Machine named(Machine fromFile, Path root, String what, List<String> notes) {
    KernelNames names = new KernelNames(root, what, notes);
    List<Device> out = new ArrayList<>();
    Set<PciAddress> done = new HashSet<>();
    for (Device d : fromFile.devices()) {
      if (d.address() == null || d.kind() == DeviceKind.GPU) {
        out.add(d.address() == null ? d : names.placed(d, names.rdma.directory(d.address())));
      } else if (done.add(d.address())) {
        out.addAll(names.nics(fromFile, d));
      }
    }
    return new Machine(fromFile.nodeName(), fromFile.source(), fromFile.pcie(), out);
  }

  /** The HCAs of one NIC function: one per ibverbs name, or one without a name. */
  private List<Device> nics(Machine fromFile, Device nic) {
    Path fn = rdma.directory(nic.address());
    Device d = placed(nic, fn);
    List<String> kernel = fn == null ? List.of() : RdmaFunction.ibDevices(fn);
    List<String> file = fileNames(fromFile, nic.address());
    if (fn == null) {
      notes.add(
          "nccl: "
              + what
              + " names a NIC at PCI "
              + nic.address()
              + " that this node does not have (no /sys/bus/pci/devices/"
              + nic.address()
              + "): check that the file is this VM size's");
    } else if (!kernel.isEmpty() && !file.isEmpty() && !file.equals(kernel)) {
      notes.add(
          "nccl: NIC at PCI "
              + nic.address()
              + ": "
              + what
              + " names it "
              + file
              + ", the kernel "
              + kernel
              + ": the kernel's names are used (the kubelet reports them)");
    }
    if (fn != null && kernel.isEmpty()) {
      dataDirectNote(file, nic.address());
    }
    if (kernel.isEmpty()) {
      HcaInfo info = fn == null ? HcaInfo.builder(null).build() : RdmaFunction.hca(null, fn);
      return List.of(hca(d, nic.address().toString(), null, info));
    }
    List<Device> out = new ArrayList<>();
    for (String ib : kernel) {
      HcaInfo k = RdmaFunction.hca(ib, fn);
      out.add(hca(d, ib, ib, k.rate() != null ? k : withRate(k, nic.hca().rate())));
    }
    return out;
  }

  /**
   * NCCL (2.27+) names a NIC it reaches through a ConnectX-8 Data Direct function {@code <ibverbs
   * name>_dma} and places it at that function (NVIDIA/nccl {@code src/transport/net_ib/init.cc}),
   * which has no {@code infiniband/} of its own: say which NIC the file means and why it is
   * published by bus id.
   */
  private void dataDirectNote(List<String> file, PciAddress at) {
    List<String> dma = file.stream().filter(n -> n.endsWith("_dma")).toList();
    if (!dma.isEmpty()) {
      notes.add(
          "nccl: "
              + what
              + " names "
              + dma
              + " at PCI "
              + at
              + ": NCCL's name for a NIC reached through its Data Direct function; the function"
              + " has no ibverbs device, so it is published by its bus id, without a name. On a"
              + " node with Data Direct read sysfs (live discovery), which places each NIC by its"
              + " function under its own name");
    }
  }

  /** The device with the kernel's NUMA node and, where the file has none, PCI ids. */
  private Device placed(Device d, Path fn) {
    if (fn == null) {
      return d;
    }
    int numa = RdmaFunction.numaNode(fn);
    if (numa >= 0 && numa != d.numaNode()) {
      notes.add(
          "nccl: "
              + d.kind().name()
              + " at PCI "
              + d.address()
              + ": the kernel's numa_node is "
              + numa
              + ", "
              + what
              + " puts it under NUMA node "
              + d.numaNode()
              + ": the kernel's is published (the kubelet's Topology Manager uses it)");
    }
    return d.toBuilder()
        .numaNode(numa >= 0 ? numa : d.numaNode())
        .vendorId(d.vendorId() >= 0 ? d.vendorId() : pciId(fn, "vendor"))
        .deviceId(d.deviceId() >= 0 ? d.deviceId() : pciId(fn, "device"))
        .build();
  }

  /** The NIC function {@code d} as the HCA of this id, name and attributes. */
  private static Device hca(Device d, String id, String name, HcaInfo info) {
    return d.toBuilder().id(id).name(name).hca(info).build();
  }

  private static List<String> fileNames(Machine fromFile, PciAddress address) {
    return fromFile.hcas().stream()
        .filter(h -> address.equals(h.address()) && h.hca().ibDevice() != null)
        .map(h -> h.hca().ibDevice())
        .sorted()
        .toList();
  }

  private static HcaInfo withRate(HcaInfo k, String rate) {
    return k.toBuilder().rate(rate).build();
  }

  private static int pciId(Path fn, String file) {
    String text = HostFiles.firstLine(fn.resolve(file));
    try {
      return text == null || text.isEmpty() ? -1 : DeviceRules.hex(text);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
