package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.read.IdRanges;
import dev.tandem.discovery.read.XmlLimits.ValueRule;
import dev.tandem.topology.model.PciAddress;
import java.util.Map;

/**
 * The value ranges of an hwloc XML {@code <object>}, checked before libhwloc reads the file: {@code
 * os_index} is an unsigned 32-bit number, and a CPU's (PU) or NUMA node's is a Linux CPU or NUMA
 * node number (libhwloc sizes its bitmaps by it); a cache's {@code depth} is its level, 1 to 5 (L1
 * to L5, the cache levels hwloc knows), another object's an unsigned 32-bit number; {@code
 * pci_busid} is a PCI address {@code dddd:bb:dd.f}.
 */
final class HwlocValues {

  /** The rule for hwloc XML, v1 and v2. */
  static final ValueRule RULE = HwlocValues::check;

  /** hwloc's deepest cache level (L5Cache). */
  private static final int MAX_CACHE_LEVEL = 5;

  private HwlocValues() {}

  private static void check(String element, Map<String, String> attributes) {
    if (!element.equals("object")) {
      return;
    }
    String type = attributes.getOrDefault("type", "");
    String osIndex = attributes.get("os_index");
    if (osIndex != null) {
      switch (type) {
        case "PU" -> IdRanges.cpu("os_index", osIndex);
        case "NUMANode" -> IdRanges.numaNode("os_index", osIndex);
        default -> IdRanges.unsigned("os_index", osIndex);
      }
    }
    String depth = attributes.get("depth");
    if (depth != null && isCache(type)) {
      long level = IdRanges.unsigned("depth", depth);
      if (level < 1 || level > MAX_CACHE_LEVEL) {
        throw new IllegalArgumentException(
            "depth '" + depth + "' of a cache is not a level from 1 to " + MAX_CACHE_LEVEL);
      }
    } else if (depth != null) {
      IdRanges.unsigned("depth", depth);
    }
    String busId = attributes.get("pci_busid");
    if (busId != null) {
      PciAddress.parse(busId);
    }
  }

  private static boolean isCache(String type) {
    return type.endsWith("Cache") || type.equals("Cache");
  }
}
