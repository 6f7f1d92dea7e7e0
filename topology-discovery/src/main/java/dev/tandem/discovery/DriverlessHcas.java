package dev.tandem.discovery;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * HCAs whose RDMA driver is not loaded (the PCI function is there, {@code /sys/class/infiniband}
 * does not list it, so it has no ibverbs name): no plugin can hand them out and no container could
 * use them. In the node's own view (the {@code hwloc} and {@code sysfs} sources) they stay in the
 * tree (their place in it is real) but are marked unhealthy, so that nothing plans them, with a
 * note naming each one and the fix. A file (an hwloc export, a VM's NCCL topology) says nothing
 * about the node's drivers: its HCAs are left as the file has them.
 */
final class DriverlessHcas {

  private static final Set<String> LIVE_SOURCES = Set.of("hwloc", "sysfs");

  private DriverlessHcas() {}

  static Discovery marked(Discovery d) {
    if (!LIVE_SOURCES.contains(d.source())) {
      return d;
    }
    Machine m = d.machine();
    List<String> notes = new ArrayList<>(d.notes());
    List<Device> devices = new ArrayList<>(m.devices().size());
    for (Device dev : m.devices()) {
      if (dev.kind() == DeviceKind.HCA && dev.hca().ibDevice() == null && dev.healthy()) {
        notes.add(note(m.nodeName(), dev));
        devices.add(dev.withHealthy(false));
      } else {
        devices.add(dev);
      }
    }
    if (notes.size() == d.notes().size()) {
      return d;
    }
    Machine marked = new Machine(m.nodeName(), m.source(), m.pcie(), devices);
    return new Discovery(marked, d.source(), notes, d.warnings());
  }

  static String note(String node, Device hca) {
    return String.format(
        Locale.ROOT,
        "node %s: HCA %s (PCI vendor:device %04x:%04x) has no ibverbs name: its RDMA driver is not"
            + " loaded, so it is published unhealthy and never planned. Load the driver (mlx5_ib"
            + " for ConnectX, erdma on Alibaba Cloud); the next discovery offers it",
        node,
        hca.address() != null ? "at PCI " + hca.address() : hca.id(),
        hca.vendorId() & 0xffff,
        hca.deviceId() & 0xffff);
  }
}
