package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.DiscoveryException;

/**
 * hwloc's {@code pci_type} attribute: {@code "0302 [10de:2330] [10de:16c1] a1"}: class and
 * subclass, vendor and device, subsystem, revision.
 */
record PciType(int classId, int vendor, int device) {

  static PciType parse(String text) {
    if (text == null || text.isBlank()) {
      return new PciType(-1, -1, -1);
    }
    try {
      String[] parts = text.trim().split("\\s+");
      int classId = Integer.parseInt(parts[0], 16);
      String ids = parts[1].substring(1, parts[1].length() - 1);
      int colon = ids.indexOf(':');
      return new PciType(
          classId,
          Integer.parseInt(ids.substring(0, colon), 16),
          Integer.parseInt(ids.substring(colon + 1), 16));
    } catch (RuntimeException e) {
      throw new DiscoveryException(
          "hwloc pci_type '" + text + "' is not 'CCCC [vvvv:dddd] ...'", e);
    }
  }
}
