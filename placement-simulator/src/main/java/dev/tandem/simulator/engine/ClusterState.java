package dev.tandem.simulator.engine;

import dev.tandem.simulator.cluster.Cluster;
import java.util.List;

/** Every node's state during a run, in the cluster's node order, and the gangs running. */
public final class ClusterState {

  private final List<NodeState> nodes;
  private final GangState gangs = new GangState();

  public ClusterState(Cluster cluster) {
    this.nodes = cluster.nodes().stream().map(NodeState::new).toList();
  }

  public List<NodeState> nodes() {
    return nodes;
  }

  public NodeState node(int index) {
    return nodes.get(index);
  }

  public GangState gangs() {
    return gangs;
  }
}
