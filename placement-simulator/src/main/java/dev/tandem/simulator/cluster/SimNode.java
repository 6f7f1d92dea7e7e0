package dev.tandem.simulator.cluster;

import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;

/**
 * One node of a simulated cluster. Nodes built from the same file share their index and allocator
 * (both immutable); each node's free devices live in the simulation's state.
 *
 * @param name node name, {@code <type>-<n>}
 * @param type the topology it was built from (file name without extension, or the NodeTopology's
 *     name)
 * @param allocator topology-core's allocator for this topology
 */
public record SimNode(String name, String type, Allocator allocator) {

  public LocalityIndex index() {
    return allocator.index();
  }

  public int count(DeviceKind kind) {
    return (int) index().devices().stream().filter(d -> d.kind() == kind && d.healthy()).count();
  }
}
