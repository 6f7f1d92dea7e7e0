package dev.tandem.agent.run;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.kit.config.Resolved;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The validated configuration of {@code run}, built from {@link RunSettings} (flags over
 * environment over defaults). Only {@code main} passes the real environment.
 *
 * @param nodeName the node's name
 * @param hwlocXml hwloc XML export to read, or null
 * @param ncclTopo NCCL topology file to read, or null
 * @param sysfsRoot the host root {@code /sys} and {@code /proc} resolve against
 * @param sysfsOnly read sysfs only, without the libraries
 * @param podResourcesSocket the kubelet's PodResources socket
 * @param resync time between full rediscoveries
 * @param poll time between PodResources polls
 * @param port health and metrics port
 * @param resources the GPU and HCA resources as the device plugins register them
 * @param nvmlLibrary the NVML library loaded when the kubelet reports MIG devices
 * @param kubeconfig kubeconfig file, or null for fabric8's default configuration
 */
public record RunConfig(
    String nodeName,
    Path hwlocXml,
    Path ncclTopo,
    Path sysfsRoot,
    boolean sysfsOnly,
    Path podResourcesSocket,
    Duration resync,
    Duration poll,
    int port,
    ResourceNames resources,
    String nvmlLibrary,
    Path kubeconfig) {

  /**
   * Parses and validates flags over environment; unrelated variables are ignored.
   *
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the flag, the variable and
   *     the bad value
   */
  public static RunConfig parse(List<String> args, Map<String, String> env) {
    return from(RunSettings.SETTINGS.resolve(args, env));
  }

  /** From environment-variable names and values alone (tests, and what {@code main} passes). */
  public static RunConfig fromMap(Map<String, String> env) {
    return parse(List.of(), env);
  }

  static RunConfig from(Resolved v) {
    return new RunConfig(
        v.get(RunSettings.NODE_NAME),
        v.get(RunSettings.HWLOC_XML),
        v.get(RunSettings.NCCL_TOPO),
        v.get(RunSettings.SYSFS_ROOT),
        v.get(RunSettings.SYSFS_ONLY),
        v.get(RunSettings.POD_RESOURCES_SOCKET),
        v.get(RunSettings.RESYNC),
        v.get(RunSettings.POLL),
        v.get(RunSettings.PORT),
        new ResourceNames(v.get(RunSettings.GPU_RESOURCE), v.get(RunSettings.HCA_RESOURCE)),
        v.get(RunSettings.NVML_LIBRARY),
        v.get(RunSettings.KUBECONFIG));
  }

  /** The discovery options these settings select. */
  public DiscoveryOptions discovery() {
    return discovery(nodeName, hwlocXml, ncclTopo, sysfsRoot, sysfsOnly);
  }

  /**
   * The agent's one mapping of its discovery flags (also {@code dump}'s): a file when named, else
   * this machine through the libraries and sysfs under {@code sysfsRoot}, or sysfs only.
   */
  public static DiscoveryOptions discovery(
      String node, Path hwlocXml, Path ncclTopo, Path sysfsRoot, boolean sysfsOnly) {
    return new DiscoveryOptions(
        node, hwlocXml, sysfsRoot, ncclTopo, hwlocXml == null && ncclTopo == null && !sysfsOnly);
  }
}
