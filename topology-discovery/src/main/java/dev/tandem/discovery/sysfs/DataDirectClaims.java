package dev.tandem.discovery.sysfs;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.topology.model.PciAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Which mlx5 devices sysfs places at their Data Direct function: the ties libmlx5 reported, checked
 * against the functions the tree shows. A tie is kept when it names a {@code 15b3:2100} function of
 * this tree and every device naming that function is a function of one NIC (the kernel binds a Data
 * Direct function to each mlx5 device of the same VUID, {@code
 * drivers/infiniband/hw/mlx5/data_direct.c}); otherwise the devices stay at their own PCI address
 * and a note names the addresses. A Data Direct function no device names is a note with the reason.
 */
final class DataDirectClaims {

  private DataDirectClaims() {}

  /**
   * @param functions the tree's Data Direct functions
   * @param nics each ibverbs device's own PCI function
   * @return the Data Direct function of each device placed at one
   */
  static Map<String, PciAddress> placed(
      Set<PciAddress> functions,
      Map<String, PciAddress> nics,
      DataDirectTies ties,
      List<String> notes) {
    Map<PciAddress, List<String>> claims = new TreeMap<>();
    ties.byIbDevice().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> claims.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey()));
    Map<String, PciAddress> out = new TreeMap<>();
    for (var claim : claims.entrySet()) {
      PciAddress function = claim.getKey();
      List<String> devices = claim.getValue();
      if (!functions.contains(function)) {
        notes.add(
            "sysfs: libmlx5 names "
                + function
                + " the Data Direct function of "
                + named(devices, nics)
                + ", but this tree has no 15b3:2100 function there: placed at "
                + (devices.size() == 1 ? "its" : "their")
                + " own PCI address");
      } else if (devices.stream().map(nics::get).map(DataDirectClaims::slot).distinct().count()
          > 1) {
        notes.add(
            "sysfs: Data Direct function "
                + function
                + " is claimed by "
                + named(devices, nics)
                + ", functions of different NICs: none of them is placed by it (each stays at its"
                + " own PCI address)");
      } else {
        devices.forEach(d -> out.put(d, function));
      }
    }
    for (PciAddress function : functions) {
      if (!claims.containsKey(function)) {
        notes.add(
            "sysfs: Data Direct function "
                + function
                + " (15b3:2100) is tied to no NIC: "
                + (ties.unavailable() != null
                    ? ties.unavailable()
                        + "; without it nothing an unprivileged reader sees ties the two (the"
                        + " kernel matches them by VUID: the function's PCI VPD, readable by root"
                        + " only, and the NIC's firmware)"
                    : "no mlx5 device names it")
                + ". NICs stay at their own PCI address; GPU+HCA pods align by CPU NUMA node");
      }
    }
    return out;
  }

  private static String named(List<String> devices, Map<String, PciAddress> nics) {
    return devices.stream()
        .map(d -> d + " (PCI " + (nics.get(d) == null ? "unknown" : nics.get(d)) + ")")
        .collect(Collectors.joining(" and "));
  }

  private static String slot(PciAddress a) {
    return a == null
        ? "unknown"
        : String.format(Locale.ROOT, "%04x:%02x:%02x", a.domain(), a.bus(), a.device());
  }
}
