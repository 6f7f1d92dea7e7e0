package dev.tandem.discovery;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * HCAs whose RDMA driver is not loaded (the PCI function shows no {@code infiniband/}, so it has no
 * ibverbs name): no plugin can hand them out and no container could use them. In the node's own
 * view (this machine, its sysfs tree, or a VM's NCCL topology file read on that VM) they stay in
 * the tree (their place in it is real) but are marked unhealthy, so that nothing plans them, with a
 * note naming each one and the fix. {@link TopologySources} applies it only to sources that read
 * this node: an hwloc export or an NCCL file read alone says nothing about the node's drivers.
 */
final class DriverlessHcas {

  private DriverlessHcas() {}

  static Discovery marked(Discovery d) {
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
            + " for ConnectX, efa on AWS, erdma on Alibaba Cloud); the next discovery offers it",
        node,
        hca.address() != null ? "at PCI " + hca.address() : hca.id(),
        hca.vendorId() & 0xffff,
        hca.deviceId() & 0xffff);
  }
}
