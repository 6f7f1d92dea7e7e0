package dev.tandem.agent.run;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.node.LocalNode;
import dev.tandem.kit.node.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The validated configuration of {@code run}, built from {@link RunSettings} (flags over
 * environment over defaults). Only {@code main} passes the real environment.
 *
 * @param node the node's name and how its machine is read
 * @param railMap the operator's rail mapping file, or null for rails by PCI order
 * @param podResourcesSocket the kubelet's PodResources socket
 * @param resync time between full rediscoveries
 * @param poll time between PodResources polls
 * @param port health and metrics port
 * @param resources the GPU and HCA resources as the device plugins register them
 * @param draDriver Tandem's DRA driver name, whose claimed devices are read by their names
 * @param nvmlLibrary the NVML library loaded when the kubelet reports MIG devices
 * @param kubeconfig kubeconfig file, or null for fabric8's default configuration
 */
public record RunConfig(
    LocalNode node,
    Path railMap,
    Path podResourcesSocket,
    Duration resync,
    Duration poll,
    int port,
    ResourceNames resources,
    String draDriver,
    String nvmlLibrary,
    Path kubeconfig) {

  /**
   * Parses and validates flags over environment; unrelated variables are ignored.
   *
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the flag, the variable and
   *     the bad value
   */
  public static RunConfig parse(List<String> args, Map<String, String> env) {
    return from(RunSettings.SETTINGS.resolve(args, env), env);
  }

  /** From environment-variable names and values alone (tests, and what {@code main} passes). */
  public static RunConfig fromMap(Map<String, String> env) {
    return parse(List.of(), env);
  }

  static RunConfig from(Resolved v, Map<String, String> env) {
    return new RunConfig(
        NodeSettings.localNode(v, env),
        v.get(NodeSettings.RAIL_MAP),
        v.get(NodeSettings.POD_RESOURCES_SOCKET),
        v.get(RunSettings.RESYNC),
        v.get(RunSettings.POLL),
        v.get(RunSettings.PORT),
        new ResourceNames(v.get(RunSettings.GPU_RESOURCE), v.get(RunSettings.HCA_RESOURCE)),
        v.get(RunSettings.DRA_DRIVER_NAME),
        v.get(NodeSettings.NVML_LIBRARY),
        v.get(NodeSettings.KUBECONFIG));
  }

  /** The node's name, which the agent publishes and audits under. */
  public String nodeName() {
    return node.nodeName();
  }

  /** The discovery options these settings select. */
  public DiscoveryOptions discovery() {
    return node.into(DiscoveryOptions::fromNodeSettings);
  }
}
