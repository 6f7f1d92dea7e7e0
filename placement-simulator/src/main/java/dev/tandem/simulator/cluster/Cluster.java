package dev.tandem.simulator.cluster;

import dev.tandem.simulator.workload.NodeLimits;
import dev.tandem.topology.model.DeviceKind;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The nodes a workload is replayed on.
 *
 * @param nodes every node, in the order the cluster was described
 */
public record Cluster(List<SimNode> nodes) {

  public Cluster {
    nodes = List.copyOf(nodes);
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one node");
    }
  }

  public int count(DeviceKind kind) {
    return nodes.stream().mapToInt(n -> n.count(kind)).sum();
  }

  /** The largest node: a pod asking for more can never run here. */
  public NodeLimits limits() {
    return new NodeLimits(
        nodes.stream().mapToInt(n -> n.count(DeviceKind.GPU)).max().orElse(0),
        nodes.stream().mapToInt(n -> n.count(DeviceKind.HCA)).max().orElse(0));
  }

  /** How many nodes of each type, in order of first appearance. */
  public Map<String, Integer> composition() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (SimNode n : nodes) {
      out.merge(n.type(), 1, Integer::sum);
    }
    return out;
  }
}
