package dev.tandem.agent.cli;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.topology.model.InvalidTopologyException;
import dev.tandem.topology.render.TopologyMatrix;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintStream;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * {@code dump}: discovers this node (or a file) and prints the {@code NodeTopology} object as the
 * agent would publish it (JSON or YAML), or the nvidia-smi-style matrix.
 *
 * <p>Exit codes: 0 printed; 1 discovery failed (missing, unreadable or invalid input, library
 * missing); 2 bad command line.
 */
public final class DumpCommand {

  static final String USAGE =
      """
      usage: java -jar node-topology-agent.jar dump [--hwloc-xml FILE | --sysfs-root DIR | --nccl-topo FILE]
                                                   [--node-name NAME] [--format json|yaml|matrix]

      Discovers the node's GPUs, HCAs and PCIe/NUMA tree and prints the NodeTopology object as it
      would be published (json, the default, or yaml), or the nvidia-smi-style matrix (matrix).

        --hwloc-xml FILE   load an hwloc XML export through libhwloc instead of this machine
        --sysfs-root DIR   read a captured sysfs/procfs tree under DIR (DIR/sys, DIR/proc), no libraries
        --nccl-topo FILE   read an NCCL topology file (a cloud vendor's GPU/NIC grouping)
        --node-name NAME   node name (default: $NODE_NAME, else the host name)
        --format FORMAT    json, yaml or matrix (default json)
        --help             print this help

      Without a file, this machine is read through libhwloc (Debian libhwloc15), falling back to
      sysfs under /, and libibverbs adds HCA port states. Exit 0 on success, 1 when discovery fails
      (the message names the file and the reason), 2 on a bad command line.
      """;

  private DumpCommand() {}

  public static int run(String[] args) {
    return run(args, System.out, System.err, System.getenv());
  }

  static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    DumpFlags flags;
    try {
      flags = DumpFlags.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("node-topology-agent dump: " + e.getMessage() + " (see dump --help)");
      return 2;
    }
    if (flags.help()) {
      out.print(USAGE);
      return 0;
    }
    String node = flags.nodeName() != null ? flags.nodeName() : defaultNodeName(env);
    DiscoveryOptions options = flags.options(node);
    try {
      Discovery d = TopologySources.discoverOnce(options);
      out.print(render(d, flags.format()));
      out.flush();
      return 0;
    } catch (DiscoveryException | InvalidTopologyException e) {
      err.println("node-topology-agent dump: " + e.getMessage());
      return 1;
    } catch (RuntimeException e) {
      err.println("node-topology-agent dump: discovery failed on node " + node + ": " + e);
      return 1;
    }
  }

  static String render(Discovery d, String format) {
    if (format.equals("matrix")) {
      return "Node "
          + d.machine().nodeName()
          + " (source "
          + d.source()
          + ")\n\n"
          + TopologyMatrix.render(d.machine())
          + "\nNearest HCAs:\n\n"
          + TopologyMatrix.pairs(d.machine());
    }
    NodeTopology resource =
        NodeTopologyMapper.toResource(
            d.machine(), new NodeTopologyStatus(null, List.of(), List.of(), d.notes()));
    KubernetesSerialization serialization = new KubernetesSerialization();
    return format.equals("yaml")
        ? serialization.asYaml(resource)
        : serialization.asJson(resource) + "\n";
  }

  static String defaultNodeName(Map<String, String> env) {
    String fromEnv = env.get("NODE_NAME");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "localhost";
    }
  }
}
