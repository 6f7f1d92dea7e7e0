package dev.tandem.agent.cli;

import dev.tandem.discovery.DiscoveryOptions;
import java.nio.file.Path;
import java.util.Set;

/** The parsed flags of {@code dump}; {@link #parse} throws with a message naming the bad flag. */
record DumpFlags(
    Path hwlocXml, Path sysfsRoot, Path ncclTopo, String nodeName, String format, boolean help) {

  static final Set<String> FORMATS = Set.of("json", "yaml", "matrix");

  static DumpFlags parse(String[] args) {
    Path hwloc = null;
    Path sysfs = null;
    Path nccl = null;
    String node = null;
    String format = "json";
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      if (name.equals("--help") || name.equals("-h")) {
        return new DumpFlags(null, null, null, null, format, true);
      }
      if (!Set.of("--hwloc-xml", "--sysfs-root", "--nccl-topo", "--node-name", "--format")
          .contains(name)) {
        throw new IllegalArgumentException("unknown flag '" + arg + "'");
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("flag " + name + " needs a value");
        }
        value = args[++i];
      }
      switch (name) {
        case "--hwloc-xml" -> hwloc = Path.of(value);
        case "--sysfs-root" -> sysfs = Path.of(value);
        case "--nccl-topo" -> nccl = Path.of(value);
        case "--node-name" -> node = value;
        default -> format = value;
      }
    }
    if (!FORMATS.contains(format)) {
      throw new IllegalArgumentException(
          "--format " + format + " is not one of json, yaml, matrix");
    }
    int sources = (hwloc != null ? 1 : 0) + (sysfs != null ? 1 : 0) + (nccl != null ? 1 : 0);
    if (sources > 1) {
      throw new IllegalArgumentException(
          "give at most one of --hwloc-xml, --sysfs-root, --nccl-topo");
    }
    return new DumpFlags(hwloc, sysfs, nccl, node, format, false);
  }

  DiscoveryOptions options(String node) {
    if (hwlocXml != null) {
      return DiscoveryOptions.hwlocXml(node, hwlocXml);
    }
    if (ncclTopo != null) {
      return DiscoveryOptions.ncclTopo(node, ncclTopo);
    }
    if (sysfsRoot != null) {
      return DiscoveryOptions.sysfs(node, sysfsRoot);
    }
    return DiscoveryOptions.live(node);
  }
}
