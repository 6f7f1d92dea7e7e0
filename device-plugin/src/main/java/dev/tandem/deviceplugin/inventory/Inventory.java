package dev.tandem.deviceplugin.inventory;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.deviceplugin.config.Mode;
import dev.tandem.deviceplugin.config.PluginConfig;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The devices the plugin offers on one node, derived from the node's topology and the config: which
 * HCAs (selectors), and how each becomes kubelet devices (mode). An HCA without an ibverbs name
 * (its RDMA driver is not loaded, or a VM's NIC known only from an NCCL topology file) has no
 * device a container could use: it is left out, with one warning. Immutable.
 */
public final class Inventory {

  private static final Logger LOG = LoggerFactory.getLogger(Inventory.class);

  private final Machine machine;
  private final PluginConfig config;
  private final List<Device> hcas;
  private final DeviceIds ids;
  private final Map<String, PluginDevice> byId = new LinkedHashMap<>();

  private Inventory(Machine machine, PluginConfig config) {
    this.machine = machine;
    this.config = config;
    this.ids = DeviceIds.of(machine);
    this.hcas =
        machine.hcas().stream()
            .filter(h -> config.selectors().matches(h, machine))
            .filter(h -> named(machine, h))
            .toList();
    for (Device hca : hcas) {
      for (PluginDevice d : devicesOf(hca)) {
        byId.put(d.id(), d);
      }
    }
  }

  public static Inventory of(Machine machine, PluginConfig config) {
    return new Inventory(machine, config);
  }

  public Machine machine() {
    return machine;
  }

  public PluginConfig config() {
    return config;
  }

  /** The HCAs (and VFs) the selectors kept, in canonical order. */
  public List<Device> hcas() {
    return hcas;
  }

  public List<PluginDevice> devices() {
    return List.copyOf(byId.values());
  }

  public Optional<PluginDevice> device(String id) {
    return Optional.ofNullable(byId.get(id));
  }

  /**
   * The plugin's device ids that an HCA id of a plan stands for: the HCA itself ({@code hca}), its
   * slots ({@code shared}), or the VF itself or the VFs of that PF ({@code sriov}). An HCA id may
   * be the topology's device id or the ibverbs name. Empty when the HCA is not offered.
   */
  public List<String> idsFor(String hcaId) {
    Optional<Device> hca = ids.device(hcaId).filter(d -> d.kind() == DeviceKind.HCA);
    if (hca.isEmpty()) {
      return List.of();
    }
    Device h = hca.get();
    List<String> out = new ArrayList<>();
    for (PluginDevice d : byId.values()) {
      boolean vfOfIt = h.address() != null && h.address().equals(d.hca().hca().physicalFunction());
      if (d.hca().id().equals(h.id()) || (config.mode() == Mode.SRIOV && vfOfIt)) {
        out.add(d.id());
      }
    }
    return out;
  }

  private static boolean named(Machine machine, Device hca) {
    if (hca.hca().ibDevice() != null) {
      return true;
    }
    LOG.warn(
        "node {}: RDMA device {} (PCI vendor:device {}) has no ibverbs name, so it is not offered;"
            + " the other HCAs are. Load its RDMA driver (mlx5_ib for ConnectX, erdma on Alibaba"
            + " Cloud) so that /sys/class/infiniband lists it, then restart the device plugin",
        machine.nodeName(),
        hca.address() != null ? "at PCI " + hca.address() : hca.id(),
        String.format(Locale.ROOT, "%04x:%04x", hca.vendorId() & 0xffff, hca.deviceId() & 0xffff));
    return false;
  }

  private List<PluginDevice> devicesOf(Device hca) {
    boolean vf = hca.hca().virtualFunction();
    return switch (config.mode()) {
      case HCA -> vf ? List.of() : List.of(new PluginDevice(DeviceIds.wholeHca(hca), hca));
      case SRIOV ->
          vf && hca.address() != null
              ? List.of(new PluginDevice(DeviceIds.virtualFunction(hca), hca))
              : List.of();
      case SHARED -> {
        if (vf) {
          yield List.of();
        }
        List<PluginDevice> slots = new ArrayList<>(config.slotsPerHca());
        for (int s = 0; s < config.slotsPerHca(); s++) {
          slots.add(new PluginDevice(DeviceIds.slot(hca, s), hca));
        }
        yield slots;
      }
    };
  }
}
