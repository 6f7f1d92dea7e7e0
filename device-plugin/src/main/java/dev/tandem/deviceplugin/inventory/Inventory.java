package dev.tandem.deviceplugin.inventory;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.deviceplugin.config.Mode;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.Collections;
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
 * (its RDMA driver is not loaded: on bare metal, or a VM's NIC whose PCI function in sysfs shows no
 * {@code infiniband/}) has no device a container could use: it is left out, with one warning. The
 * device set changes only as a whole, when a {@link #rescan} finds other devices (SR-IOV VFs
 * re-created, an RDMA driver loaded after start): each call reads one consistent set.
 */
public final class Inventory {

  private static final Logger LOG = LoggerFactory.getLogger(Inventory.class);

  private final ResourceConfig config;
  private volatile Devices current;

  /** One discovery's devices: the machine, the HCAs the selectors kept, the offered devices. */
  private record Devices(
      Machine machine, List<Device> hcas, DeviceIds ids, Map<String, PluginDevice> byId) {}

  private Inventory(Machine machine, ResourceConfig config) {
    this.config = config;
    this.current = devices(machine, config, true);
  }

  public static Inventory of(Machine machine, ResourceConfig config) {
    return new Inventory(machine, config);
  }

  /** {@code warn}: log each HCA left out for want of an ibverbs name (once, at start). */
  private static Devices devices(Machine machine, ResourceConfig config, boolean warn) {
    List<Device> hcas =
        machine.hcas().stream()
            .filter(h -> config.selectors().matches(h, machine))
            .filter(h -> h.hca().ibDevice() != null || (warn && unnamed(machine, h)))
            .toList();
    Map<String, PluginDevice> byId = new LinkedHashMap<>();
    for (Device hca : hcas) {
      for (PluginDevice d : devicesOf(hca, config)) {
        byId.put(d.id(), d);
      }
    }
    return new Devices(machine, hcas, DeviceIds.of(machine), Collections.unmodifiableMap(byId));
  }

  /**
   * Takes a new discovery of the node when it offers other devices than now (VFs removed or
   * re-created with {@code sriov_numvfs}, an HCA whose RDMA driver was loaded or unloaded);
   * otherwise keeps the current set.
   *
   * @return whether the offered device ids changed
   */
  public boolean rescan(Machine machine) {
    Devices next = devices(machine, config, false);
    Devices now = current;
    if (next.byId().keySet().equals(now.byId().keySet())) {
      return false;
    }
    LOG.info(
        "node {}: {} devices now {} (were {})",
        machine.nodeName(),
        config.resourceName(),
        next.byId().keySet(),
        now.byId().keySet());
    current = next;
    return true;
  }

  public Machine machine() {
    return current.machine();
  }

  public ResourceConfig config() {
    return config;
  }

  /** The mapping of kubelet and plan ids to the devices of the current discovery. */
  public DeviceIds ids() {
    return current.ids();
  }

  /** The HCAs (and VFs) the selectors kept, in canonical order. */
  public List<Device> hcas() {
    return current.hcas();
  }

  public List<PluginDevice> devices() {
    return List.copyOf(current.byId().values());
  }

  public Optional<PluginDevice> device(String id) {
    return Optional.ofNullable(current.byId().get(id));
  }

  /**
   * The plugin's device ids that an HCA id of a plan stands for: the HCA itself ({@code hca}), its
   * slots ({@code shared}), or the VF itself or the VFs of that PF ({@code sriov}). An HCA id may
   * be the topology's device id or the ibverbs name. Empty when the HCA is not offered.
   */
  public List<String> idsFor(String hcaId) {
    Devices now = current;
    Optional<Device> hca = now.ids().device(hcaId).filter(d -> d.kind() == DeviceKind.HCA);
    if (hca.isEmpty()) {
      return List.of();
    }
    Device h = hca.get();
    List<String> out = new ArrayList<>();
    for (PluginDevice d : now.byId().values()) {
      boolean vfOfIt = h.address() != null && h.address().equals(d.hca().hca().physicalFunction());
      if (d.hca().id().equals(h.id()) || (config.mode() == Mode.SRIOV && vfOfIt)) {
        out.add(d.id());
      }
    }
    return out;
  }

  /** Warns that the HCA is not offered; false. */
  private static boolean unnamed(Machine machine, Device hca) {
    LOG.warn(
        "node {}: RDMA device {} (PCI vendor:device {}) has no ibverbs name, so it is not offered;"
            + " the other HCAs are. Load its RDMA driver (mlx5_ib for ConnectX, efa on AWS, erdma on"
            + " Alibaba Cloud) so that /sys/class/infiniband lists it: the plugin offers it at its"
            + " next health check, without a restart",
        machine.nodeName(),
        hca.address() != null ? "at PCI " + hca.address() : hca.id(),
        String.format(Locale.ROOT, "%04x:%04x", hca.vendorId() & 0xffff, hca.deviceId() & 0xffff));
    return false;
  }

  private static List<PluginDevice> devicesOf(Device hca, ResourceConfig config) {
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
