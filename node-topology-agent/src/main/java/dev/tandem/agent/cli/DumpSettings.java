package dev.tandem.agent.cli;

import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.node.NodeSettings;
import java.util.List;

/**
 * The settings of {@code dump}: the node settings {@code run} and the device plugin list too
 * ({@link NodeSettings}, the node name optional here), and the output format.
 */
final class DumpSettings {

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
              sysfs under --sysfs-root, and libibverbs adds HCA port states. Every flag but --format can
              also be set through the environment variable in brackets, as for run. Exit 0 on success, 1
              when discovery fails (the message names the file and the reason), 2 on a bad command line
              (a file or directory that does not exist included).
              """,
              List.of(
                  NodeSettings.NODE_NAME,
                  NodeSettings.HWLOC_XML,
                  NodeSettings.NCCL_TOPO,
                  NodeSettings.SYSFS_ROOT,
                  NodeSettings.SYSFS_ONLY,
                  FORMAT))
          .rules(NodeSettings.ONE_SOURCE);

  private DumpSettings() {}
}
