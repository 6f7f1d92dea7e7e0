package dev.tandem.simulator.engine;

import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.topology.allocation.Availability;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A node's free devices during a run, and which pod holds what. */
public final class NodeState {

  private final SimNode node;
  private final Availability empty;
  private final Map<Integer, List<String>> held = new HashMap<>();
  private Availability free;

  NodeState(SimNode node) {
    this.node = node;
    this.empty = Availability.allFree(node.index(), 1);
    this.free = empty;
  }

  public SimNode node() {
    return node;
  }

  /** What is free now, as the allocator reads it. */
  public Availability free() {
    return free;
  }

  void take(int pod, List<String> deviceIds) {
    held.put(pod, List.copyOf(deviceIds));
    free = free.without(deviceIds);
  }

  void release(int pod) {
    if (held.remove(pod) != null) {
      List<String> all = new ArrayList<>();
      held.values().forEach(all::addAll);
      free = empty.without(all);
    }
  }
}
