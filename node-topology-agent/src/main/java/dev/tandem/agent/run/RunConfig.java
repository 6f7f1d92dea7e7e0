package dev.tandem.agent.run;

import dev.tandem.discovery.DiscoveryOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The validated configuration of {@code run}, built from a map of environment-variable names to
 * values ({@link #fromMap}); flags are folded into that map by {@link RunArgs}. Only {@code main}
 * passes the real environment.
 *
 * @param nodeName the node's name
 * @param hwlocXml hwloc XML export to read, or null
 * @param sysfsRoot sysfs root to read (sysfs only), or null
 * @param ncclTopo NCCL topology file to read, or null
 * @param podResourcesSocket the kubelet's PodResources socket
 * @param resync time between full rediscoveries
 * @param poll time between PodResources polls
 * @param port health and metrics port
 * @param kubeconfig kubeconfig file, or null for fabric8's default configuration
 */
public record RunConfig(
    String nodeName,
    Path hwlocXml,
    Path sysfsRoot,
    Path ncclTopo,
    Path podResourcesSocket,
    Duration resync,
    Duration poll,
    int port,
    Path kubeconfig) {

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  /**
   * Parses and validates; keys are environment-variable names, other keys are ignored.
   *
   * @throws InvalidConfigurationException naming the flag, the variable and the bad value
   */
  public static RunConfig fromMap(Map<String, String> values) {
    Map<Setting, String> v = new EnumMap<>(Setting.class);
    for (Setting s : Setting.values()) {
      String value = values.get(s.env());
      value = value == null || value.isBlank() ? s.defaultValue() : value.trim();
      if (value != null) {
        v.put(s, value);
      }
    }
    String node = v.get(Setting.NODE_NAME);
    if (node == null) {
      throw new InvalidConfigurationException(
          Setting.NODE_NAME.names() + " is required: " + Setting.NODE_NAME.help());
    }
    if (node.length() > 253 || !DNS_SUBDOMAIN.matcher(node).matches()) {
      throw invalid(Setting.NODE_NAME, node, "is not a valid node name (lowercase DNS subdomain)");
    }
    long sources =
        Stream.of(Setting.HWLOC_XML, Setting.SYSFS_ROOT, Setting.NCCL_TOPO)
            .filter(v::containsKey)
            .count();
    if (sources > 1) {
      throw new InvalidConfigurationException(
          "give at most one of "
              + Setting.HWLOC_XML.names()
              + ", "
              + Setting.SYSFS_ROOT.names()
              + ", "
              + Setting.NCCL_TOPO.names());
    }
    return new RunConfig(
        node,
        file(v, Setting.HWLOC_XML),
        directory(v, Setting.SYSFS_ROOT),
        file(v, Setting.NCCL_TOPO),
        Path.of(v.get(Setting.POD_RESOURCES_SOCKET)),
        seconds(v, Setting.RESYNC, 1, 86_400),
        seconds(v, Setting.POLL, 1, 3_600),
        (int) number(v, Setting.PORT, 0, 65_535),
        file(v, Setting.KUBECONFIG));
  }

  /** The discovery options these settings select. */
  public DiscoveryOptions discovery() {
    if (hwlocXml != null) {
      return DiscoveryOptions.hwlocXml(nodeName, hwlocXml);
    }
    if (ncclTopo != null) {
      return DiscoveryOptions.ncclTopo(nodeName, ncclTopo);
    }
    if (sysfsRoot != null) {
      return DiscoveryOptions.sysfs(nodeName, sysfsRoot);
    }
    return DiscoveryOptions.live(nodeName);
  }

  /** One line per setting, for the start-up log. */
  public String describe() {
    Map<String, Object> shown = new LinkedHashMap<>();
    shown.put("node", nodeName);
    shown.put(
        "discovery",
        hwlocXml != null
            ? "hwloc XML " + hwlocXml
            : ncclTopo != null
                ? "NCCL topology " + ncclTopo
                : sysfsRoot != null
                    ? "sysfs under " + sysfsRoot
                    : "this machine (hwloc, then sysfs)");
    shown.put("podResourcesSocket", podResourcesSocket);
    shown.put("resync", resync.toSeconds() + "s");
    shown.put("poll", poll.toSeconds() + "s");
    shown.put("port", port);
    shown.put(
        "kubeconfig", kubeconfig == null ? "default (in-cluster or ~/.kube/config)" : kubeconfig);
    return shown.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(", "));
  }

  private static Path file(Map<Setting, String> v, Setting s) {
    String value = v.get(s);
    if (value == null) {
      return null;
    }
    Path p = Path.of(value);
    if (!Files.isRegularFile(p)) {
      throw invalid(s, value, "is not a readable file");
    }
    return p;
  }

  private static Path directory(Map<Setting, String> v, Setting s) {
    String value = v.get(s);
    if (value == null) {
      return null;
    }
    Path p = Path.of(value);
    if (!Files.isDirectory(p)) {
      throw invalid(s, value, "is not a directory");
    }
    return p;
  }

  private static Duration seconds(Map<Setting, String> v, Setting s, long min, long max) {
    return Duration.ofSeconds(number(v, s, min, max));
  }

  private static long number(Map<Setting, String> v, Setting s, long min, long max) {
    String value = v.get(s);
    try {
      long n = Long.parseLong(value);
      if (n < min || n > max) {
        throw invalid(s, value, "is out of range " + min + ".." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw invalid(s, value, "is not a whole number");
    }
  }

  private static InvalidConfigurationException invalid(Setting s, String value, String problem) {
    return new InvalidConfigurationException(s.names() + ": '" + value + "' " + problem);
  }
}
