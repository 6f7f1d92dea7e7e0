package dev.tandem.discovery.hwloc;

import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.read.XmlLimits;

/**
 * Checks, before libhwloc sees it, that a file is well-formed XML (all of it) within {@link
 * XmlLimits} and hwloc's value ranges ({@link HwlocValues}), with an {@code <topology>} root of a
 * version libhwloc 2.x imports (none/1.x/2.x), so that errors name the file, the line and column,
 * and the reason instead of hwloc's bare failure, and no file libhwloc could crash or stall on
 * reaches it.
 */
final class HwlocXmlVersion {

  private HwlocXmlVersion() {}

  static void check(String text, String what) {
    XmlLimits.Root root = XmlLimits.check(text, what, HwlocValues.RULE);
    if (!root.name().equals("topology")) {
      throw new DiscoveryException(
          what
              + " is not an hwloc XML topology: its root element is <"
              + root.name()
              + ">, expected <topology>"
              + (root.name().equals("system")
                  ? " (this looks like an NCCL topology file: use --nccl-topo)"
                  : ""));
    }
    String version = root.attributes().get("version");
    if (version != null && !version.startsWith("1.") && !version.startsWith("2.")) {
      throw new DiscoveryException(
          what
              + " is hwloc XML version "
              + version
              + ", which libhwloc 2.x cannot import (it reads versions 1.x and 2.x); export it again with "
              + "hwloc 2 (lstopo --of xml) or with hwloc 3's v2 export option");
    }
  }
}
