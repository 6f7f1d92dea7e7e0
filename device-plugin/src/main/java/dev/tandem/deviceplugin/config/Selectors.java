package dev.tandem.deviceplugin.config;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Locale;

/**
 * Which HCAs the plugin offers. Each list that is not empty must match (any of its values); an
 * empty list matches everything.
 *
 * @param vendorIds PCI vendor ids in hex, e.g. {@code 15b3}
 * @param deviceIds PCI device ids in hex, e.g. {@code 101b}
 * @param linkLayers {@code InfiniBand} and/or {@code Ethernet}
 * @param ibDevices ibverbs names, e.g. {@code mlx5_0}
 * @param netdevs network interface names, e.g. {@code ib0}
 * @param pfNetdevs network interface names of the physical function: a PF with one of them, and
 *     every VF of such a PF (k8s-rdma-sriov-dev-plugin's {@code pfNetdevices})
 */
public record Selectors(
    List<String> vendorIds,
    List<String> deviceIds,
    List<String> linkLayers,
    List<String> ibDevices,
    List<String> netdevs,
    List<String> pfNetdevs) {

  public static final Selectors ALL =
      new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(), List.of());

  public Selectors {
    vendorIds = lower(vendorIds);
    deviceIds = lower(deviceIds);
    linkLayers = lower(linkLayers);
    ibDevices = List.copyOf(ibDevices);
    netdevs = List.copyOf(netdevs);
    pfNetdevs = List.copyOf(pfNetdevs);
  }

  /** Whether the HCA (or VF) of {@code machine} is offered. */
  public boolean matches(Device hca, Machine machine) {
    HcaInfo info = hca.hca();
    return anyOf(vendorIds, hex(hca.vendorId()))
        && anyOf(deviceIds, hex(hca.deviceId()))
        && anyOf(
            linkLayers, info.linkLayer() == null ? null : info.linkLayer().toLowerCase(Locale.ROOT))
        && anyOf(ibDevices, info.ibDevice())
        && (netdevs.isEmpty() || info.netdevs().stream().anyMatch(netdevs::contains))
        && (pfNetdevs.isEmpty()
            || physicalFunction(hca, machine).stream().anyMatch(pfNetdevs::contains));
  }

  /** The interfaces of the device's PF: its own for a PF, its PF's for a VF (none if not found). */
  private static List<String> physicalFunction(Device hca, Machine machine) {
    HcaInfo info = hca.hca();
    if (!info.virtualFunction()) {
      return info.netdevs();
    }
    return machine.hcas().stream()
        .filter(pf -> pf.address() != null && pf.address().equals(info.physicalFunction()))
        .findFirst()
        .map(pf -> pf.hca().netdevs())
        .orElse(List.of());
  }

  private static boolean anyOf(List<String> allowed, String value) {
    return allowed.isEmpty() || (value != null && allowed.contains(value));
  }

  private static String hex(int id) {
    return id < 0 ? null : String.format(Locale.ROOT, "%04x", id);
  }

  private static List<String> lower(List<String> in) {
    return in.stream()
        .map(
            s -> {
              String t = s.trim().toLowerCase(Locale.ROOT);
              return t.startsWith("0x") ? t.substring(2) : t;
            })
        .toList();
  }
}
