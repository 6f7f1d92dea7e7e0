package dev.tandem.simulator;

import dev.tandem.fixtures.Sketch;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Clusters of test-fixtures' machines, for tests that need no topology file. */
public final class SmallClusters {

  private SmallClusters() {}

  /**
   * Two sockets. Socket 0: one switch with a GPU and an HCA, one with a GPU and no HCA. Socket 1:
   * one switch with 2 GPUs and 2 HCAs. Three aligned 1+1 pairs; one GPU of four has no HCA.
   */
  public static Machine twoSockets(String name) {
    return TestMachines.machine(
        name, new Switch(0, 1, 1), new Switch(0, 1, 0), new Switch(1, 2, 2));
  }

  /** One socket, eight switches, each with one GPU and one HCA. */
  public static Machine eightPairs(String name) {
    Switch pair = new Switch(0, 1, 1);
    return TestMachines.machine(name, pair, pair, pair, pair, pair, pair, pair, pair);
  }

  /** A cluster of {@code count} copies of one machine, sharing its allocator. */
  public static Cluster of(Machine machine, int count) {
    Allocator allocator = new Allocator(LocalityIndex.of(machine));
    List<SimNode> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(new SimNode(machine.nodeName() + "-" + i, machine.nodeName(), allocator));
    }
    return new Cluster(nodes);
  }

  /** A random small machine with 1–4 GPUs and 1–4 HCAs ({@link Sketch#random}). */
  public static Machine random(Random random, String name) {
    return Sketch.random(random, name, 1, 4);
  }
}
