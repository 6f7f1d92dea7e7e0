package dev.tandem.agent.cli;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.node.LocalNode;
import dev.tandem.kit.node.NodeSettings;
import dev.tandem.topology.model.InvalidTopologyException;
import dev.tandem.topology.render.TopologyMatrix;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * {@code dump}: discovers this node (or a file) and prints the {@code NodeTopology} object as the
 * agent would publish it (JSON or YAML), or the nvidia-smi-style matrix.
 *
 * <p>Exit codes: 0 printed; 1 discovery failed (unreadable or invalid input, library missing); 2
 * bad command line (a file or directory that does not exist included).
 */
public final class DumpCommand {

  private DumpCommand() {}

  /** Runs {@code dump} with {@code env} as its environment (the node settings' variables). */
  public static int run(String[] args, Map<String, String> env) {
    return run(args, System.out, System.err, env);
  }

  static int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    if (Settings.wantsHelp(List.of(args))) {
      out.print(DumpSettings.SETTINGS.usage());
      return 0;
    }
    LocalNode node;
    String format;
    try {
      Resolved values = DumpSettings.SETTINGS.resolve(List.of(args), env);
      node = NodeSettings.localNode(values, env);
      format = values.get(DumpSettings.FORMAT);
    } catch (InvalidConfigurationException e) {
      err.println("node-topology-agent dump: " + e.getMessage());
      return 2;
    }
    DiscoveryOptions options = node.into(DiscoveryOptions::fromNodeSettings);
    try {
      Discovery d = TopologySources.discoverOnce(options);
      out.print(render(d, format));
      out.flush();
      return 0;
    } catch (DiscoveryException | InvalidTopologyException e) {
      err.println("node-topology-agent dump: " + e.getMessage());
      return 1;
    } catch (RuntimeException e) {
      err.println(
          "node-topology-agent dump: discovery failed on node " + node.nodeName() + ": " + e);
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
}
