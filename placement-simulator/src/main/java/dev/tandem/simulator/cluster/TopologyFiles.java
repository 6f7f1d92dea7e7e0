package dev.tandem.simulator.cluster;

import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;

/**
 * Reads one topology file (an hwloc XML export or an NCCL topology file) through
 * topology-discovery. The only place the simulator calls discovery.
 */
final class TopologyFiles {

  private TopologyFiles() {}

  /**
   * @param nccl whether the file is an NCCL topology file (root element {@code <system>})
   * @throws ClusterFileException naming the file, and the line and column for XML that is not
   *     well-formed, with discovery's reason
   */
  static Machine read(Path file, String nodeName, boolean nccl) {
    DiscoveryOptions options =
        nccl
            ? DiscoveryOptions.ncclTopo(nodeName, file)
            : DiscoveryOptions.hwlocXml(nodeName, file);
    try {
      return TopologySources.discoverOnce(options).machine();
    } catch (DiscoveryException | IllegalArgumentException e) {
      // discovery's errors name the file when it is at fault (not when libhwloc is missing)
      String reason = e.getMessage();
      throw new ClusterFileException(
          reason.contains(file.toString())
              ? reason
              : file + ": not a readable hwloc XML or NCCL topology file: " + reason,
          e);
    }
  }
}
