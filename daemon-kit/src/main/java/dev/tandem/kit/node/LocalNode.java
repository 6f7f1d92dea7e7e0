package dev.tandem.kit.node;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The node a daemon runs on and how its machine is read, as the node settings ({@link
 * NodeSettings}) give them. Plain values, so that daemon-kit carries no discovery code:
 * topology-discovery's {@code DiscoveryOptions.fromNodeSettings} is the one translation of these
 * into discovery's options, and every daemon applies it the same way, {@code
 * node.into(DiscoveryOptions::fromNodeSettings)}.
 *
 * @param nodeName the node's name
 * @param hwlocXml an hwloc XML export to read instead of this machine, or null
 * @param ncclTopo an NCCL topology file to take the GPU/NIC grouping from, or null
 * @param sysfsRoot the host root {@code /sys} and {@code /proc} resolve against
 * @param sysfsOnly read sysfs under {@code sysfsRoot} only, without libhwloc and libibverbs
 */
public record LocalNode(
    String nodeName, Path hwlocXml, Path ncclTopo, Path sysfsRoot, boolean sysfsOnly) {

  public LocalNode {
    Objects.requireNonNull(nodeName, "nodeName");
    Objects.requireNonNull(sysfsRoot, "sysfsRoot");
  }

  /**
   * A function of these values in this record's order: discovery's {@code
   * DiscoveryOptions::fromNodeSettings}.
   *
   * @param <T> what it makes of them
   */
  @FunctionalInterface
  public interface Translation<T> {

    T of(String nodeName, Path hwlocXml, Path ncclTopo, Path sysfsRoot, boolean sysfsOnly);
  }

  /** What {@code translation} makes of these values. */
  public <T> T into(Translation<T> translation) {
    return translation.of(nodeName, hwlocXml, ncclTopo, sysfsRoot, sysfsOnly);
  }
}
