package dev.tandem.simulator;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.fixtures.Sketch;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Hand-built machines and clusters for tests that need no topology file. */
public final class SmallClusters {

  private SmallClusters() {}

  /**
   * Two sockets (NUMA 0 and 1). Socket 0: switch A with GPU-0 and mlx5_0, switch B with GPU-1 and
   * no HCA. Socket 1: switch C with GPU-2, GPU-3 and mlx5_1, mlx5_2.
   */
  public static Machine twoSockets(String name) {
    Sketch s = new Sketch(name);
    String d0 = s.domain("numa:0", 0);
    String d1 = s.domain("numa:1", 1);
    s.switchWith(d0, 0, "GPU-0", "mlx5_0");
    s.switchWith(d0, 0, "GPU-1");
    s.switchWith(d1, 1, "GPU-2", "GPU-3", "mlx5_1", "mlx5_2");
    return s.build();
  }

  /** One socket, eight switches, each with one GPU and one HCA. */
  public static Machine eightPairs(String name) {
    Sketch s = new Sketch(name);
    String d0 = s.domain("numa:0", 0);
    for (int i = 0; i < 8; i++) {
      s.switchWith(d0, 0, "GPU-" + i, "mlx5_" + i);
    }
    return s.build();
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

  /**
   * 1–2 CPU domains with 1–2 root ports each, switches up to two deep, up to 4 GPUs and 4 HCAs
   * placed at random (the shape of topology-core's allocator property test).
   */
  public static Machine random(Random random, String name) {
    Sketch s = new Sketch(name);
    List<String> attach = new ArrayList<>();
    int domains = 1 + random.nextInt(2);
    for (int d = 0; d < domains; d++) {
      String domain = s.domain("numa:" + d, d);
      for (int hb = 0; hb < 1 + random.nextInt(2); hb++) {
        String rootPort = s.rootPort(domain);
        attach.add(rootPort);
        for (int sw = 0; sw < random.nextInt(3); sw++) {
          attach.add(
              s.pcieSwitch(
                  random.nextBoolean() ? rootPort : s.port(attach.get(attach.size() - 1))));
        }
      }
    }
    int gpus = 1 + random.nextInt(4);
    int hcas = 1 + random.nextInt(4);
    for (int i = 0; i < gpus + hcas; i++) {
      String at = attach.get(random.nextInt(attach.size()));
      String parent = random.nextBoolean() || at.equals(attach.get(0)) ? at : s.port(at);
      s.place(parent, i < gpus ? "GPU-" + i : "mlx5_" + (i - gpus), 0);
    }
    return s.build();
  }
}
