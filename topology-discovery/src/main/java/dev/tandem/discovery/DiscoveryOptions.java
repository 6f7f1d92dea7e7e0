package dev.tandem.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What to discover and from where: the input of the factory, {@link TopologySources#create}.
 *
 * <p>Exactly one source is used when a file is named: {@code hwlocXml} (loaded through libhwloc),
 * else {@code ncclTopo}. Without a file, the live machine is read: through libhwloc (and libibverbs
 * for port states) when {@code useLibraries} is set, falling back to the sysfs tree under {@code
 * sysfsRoot}; only from {@code sysfsRoot} otherwise.
 *
 * @param nodeName the Kubernetes node name the topology is published under
 * @param hwlocXml an hwloc XML export to load instead of this machine, or null
 * @param sysfsRoot the directory that host paths ({@code /sys}, {@code /proc}) resolve against;
 *     {@code /} when null
 * @param ncclTopo an NCCL topology file (the vendor's grouping of a cloud VM), or null
 * @param useLibraries read this machine through libhwloc and libibverbs before sysfs
 */
public record DiscoveryOptions(
    String nodeName, Path hwlocXml, Path sysfsRoot, Path ncclTopo, boolean useLibraries) {

  public static final Path HOST_ROOT = Path.of("/");

  public DiscoveryOptions {
    Objects.requireNonNull(nodeName, "nodeName");
    sysfsRoot = sysfsRoot == null ? HOST_ROOT : sysfsRoot;
    if (hwlocXml != null && ncclTopo != null) {
      throw new IllegalArgumentException(
          "give either an hwloc XML file or an NCCL topology file, not both");
    }
  }

  /** This machine: libhwloc and libibverbs first, then sysfs under {@code /}. */
  public static DiscoveryOptions live(String nodeName) {
    return new DiscoveryOptions(nodeName, null, HOST_ROOT, null, true);
  }

  /** An hwloc XML export, loaded through libhwloc. */
  public static DiscoveryOptions hwlocXml(String nodeName, Path file) {
    return new DiscoveryOptions(
        nodeName, Objects.requireNonNull(file, "file"), HOST_ROOT, null, false);
  }

  /** A captured sysfs tree ({@code DIR/sys/...}, {@code DIR/proc/...}), without the libraries. */
  public static DiscoveryOptions sysfs(String nodeName, Path root) {
    return new DiscoveryOptions(nodeName, null, Objects.requireNonNull(root, "root"), null, false);
  }

  /** An NCCL topology file. */
  public static DiscoveryOptions ncclTopo(String nodeName, Path file) {
    return new DiscoveryOptions(
        nodeName, null, HOST_ROOT, Objects.requireNonNull(file, "file"), false);
  }
}
