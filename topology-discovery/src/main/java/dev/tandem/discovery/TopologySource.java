package dev.tandem.discovery;

/**
 * Where a node's topology comes from: an hwloc XML file, an NCCL topology file, a sysfs tree or
 * this machine. {@link TopologySources#create} picks the adapter the options name.
 *
 * <p>A source is meant to be kept: a caller that rediscovers periodically calls {@link #discover}
 * on the same instance, which logs each note at INFO the first time and at DEBUG afterwards, and
 * loads the native libraries it needs once.
 */
@FunctionalInterface
public interface TopologySource {

  /**
   * Discovers the topology now. Blocks (file I/O, JNA): call it on a worker thread.
   *
   * @return the machine (empty on a node without GPUs or HCAs), its source and notes
   * @throws DiscoveryException when a named file is missing, unreadable or invalid, or libhwloc is
   *     needed for a named file and absent or of an unsupported version
   */
  Discovery discover();
}
