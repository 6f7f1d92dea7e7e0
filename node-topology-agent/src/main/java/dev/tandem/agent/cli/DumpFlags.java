package dev.tandem.agent.cli;

import dev.tandem.agent.run.RunConfig;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The parsed flags of {@code dump}, declared like {@code run}'s ({@code --sysfs-root} means the
 * same in both). Files are checked by discovery, which exits 1 naming them; {@link #parse} throws
 * naming a bad flag.
 */
record DumpFlags(
    Path hwlocXml,
    Path ncclTopo,
    Path sysfsRoot,
    boolean sysfsOnly,
    String nodeName,
    String format) {

  static final Setting<Path> HWLOC_XML =
      Setting.of("--hwloc-xml", "FILE", Parsers.path())
          .defaultText("this machine")
          .help("load an hwloc XML export through libhwloc instead of this machine");
  static final Setting<Path> NCCL_TOPO =
      Setting.of("--nccl-topo", "FILE", Parsers.path())
          .help(
              "read the GPU/NIC grouping from an NCCL topology file (a cloud vendor's), the names"
                  + " from sysfs and procfs under --sysfs-root");
  static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", "DIR", Parsers.path())
          .defaultValue("/")
          .help(
              "the host root /sys and /proc resolve against (a captured tree: DIR/sys, DIR/proc)");
  static final Setting<Boolean> SYSFS_ONLY =
      Setting.toggle("--sysfs-only", true)
          .defaultValue("false")
          .defaultText("off")
          .help("read sysfs under --sysfs-root only, without libhwloc/libibverbs");
  static final Setting<String> NODE_NAME =
      Setting.of("--node-name", "NAME", Parsers.text())
          .env("NODE_NAME")
          .defaultText("the host name")
          .help("node name");
  static final Setting<String> FORMAT =
      Setting.of("--format", "FORMAT", Parsers.oneOf("json", "yaml", "matrix"))
          .defaultValue("json")
          .help("json, yaml or matrix");

  static final Settings SETTINGS =
      Settings.of(
              """
              usage: java -jar node-topology-agent.jar dump [--hwloc-xml FILE | --nccl-topo FILE | --sysfs-only]
                                                           [--sysfs-root DIR] [--node-name NAME] [--format json|yaml|matrix]

              Discovers the node's GPUs, HCAs and PCIe/NUMA tree and prints the NodeTopology object as it
              would be published (json, the default, or yaml), or the nvidia-smi-style matrix (matrix).
              Without a file, this machine is read through libhwloc (Debian libhwloc15), falling back to
              sysfs under --sysfs-root, and libibverbs adds HCA port states. Exit 0 on success, 1 when
              discovery fails (the message names the file and the reason), 2 on a bad command line.
              """,
              List.of(HWLOC_XML, NCCL_TOPO, SYSFS_ROOT, SYSFS_ONLY, NODE_NAME, FORMAT))
          .rules(Rule.atMostOne(HWLOC_XML, NCCL_TOPO, SYSFS_ONLY));

  /**
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the bad flag
   */
  static DumpFlags parse(String[] args, Map<String, String> env) {
    Resolved v = SETTINGS.resolve(List.of(args), env);
    return new DumpFlags(
        v.get(HWLOC_XML),
        v.get(NCCL_TOPO),
        v.get(SYSFS_ROOT),
        v.get(SYSFS_ONLY),
        v.get(NODE_NAME),
        v.get(FORMAT));
  }

  DiscoveryOptions options(String node) {
    return RunConfig.discovery(node, hwlocXml, ncclTopo, sysfsRoot, sysfsOnly);
  }
}
