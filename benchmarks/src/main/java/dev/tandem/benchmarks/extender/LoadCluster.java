package dev.tandem.benchmarks.extender;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * A cluster of many nodes for the load: the extender's demo cluster of {@code n} nodes (copies of
 * the bundled real machines, in turn), then on each node a seeded share of its GPUs and HCAs
 * reported allocated to a pod, as the node's agent would report it.
 */
final class LoadCluster {

  /** Share of a node's GPUs and HCAs taken, and how often that share occurs (out of 100). */
  private static final double[] TAKEN = {0.0, 0.25, 0.5, 0.75, 1.0};

  private static final int[] WEIGHT = {30, 25, 20, 15, 10};

  private LoadCluster() {}

  /** How the nodes are named. */
  enum Naming {
    /** After the fixture: {@code <fixture>-<i>}, names that differ at the end. */
    FIXTURE,
    /**
     * As EKS names nodes, {@code ip-10-<a>-<b>-<c>.ec2.internal}: names that differ in the middle.
     */
    CLOUD;

    static Naming parse(String value) {
      return switch (value) {
        case "fixture" -> FIXTURE;
        case "cloud" -> CLOUD;
        default ->
            throw new IllegalArgumentException("--names must be fixture or cloud, got " + value);
      };
    }
  }

  /** A ready cluster state of {@code nodes} nodes named after the fixtures. */
  static ClusterParts build(int nodes, long seed) {
    return build(nodes, seed, Naming.FIXTURE);
  }

  /** A ready cluster state of {@code nodes} nodes; the same seed gives the same cluster. */
  static ClusterParts build(int nodes, long seed, Naming naming) {
    ClusterParts demo = DemoCluster.fromBundledFixtures(nodes);
    ClusterParts cluster = naming == Naming.FIXTURE ? demo : DemoCluster.of(renamed(demo.state()));
    ClusterState state = cluster.state();
    Random random = new Random(seed);
    int index = 0;
    for (NodeEntry e : state.nodes()) {
      state.putTopology(e.machine(), e.slotsPerHca(), taken(e.machine(), index++, random));
    }
    return cluster;
  }

  private static List<Machine> renamed(ClusterState demo) {
    List<Machine> out = new ArrayList<>();
    for (NodeEntry e : demo.nodes()) {
      int i = out.size();
      Machine m = e.machine();
      String name =
          "ip-10-" + (i >> 16) + "-" + ((i >> 8) & 0xff) + "-" + (i & 0xff) + ".ec2.internal";
      out.add(new Machine(name, m.source(), m.pcie(), m.devices()));
    }
    return out;
  }

  /** The node names, in the cluster's order: what a request naming every node lists. */
  static List<String> names(ClusterState state) {
    return state.nodes().stream().map(NodeEntry::name).toList();
  }

  private static List<ReportedAllocation> taken(Machine m, int index, Random random) {
    double share = TAKEN[pick(random)];
    List<String> gpus = sample(m.gpus(), share, random);
    List<String> hcas = sample(m.hcas(), share, random);
    String pod = "busy-" + index;
    String uid = String.format("00000000-0000-4000-8000-%012d", index);
    List<ReportedAllocation> out = new ArrayList<>(2);
    if (!gpus.isEmpty()) {
      out.add(new ReportedAllocation("ml-training", pod, uid, "trainer", ResourceNames.GPU, gpus));
    }
    if (!hcas.isEmpty()) {
      out.add(new ReportedAllocation("ml-training", pod, uid, "trainer", ResourceNames.HCA, hcas));
    }
    return out;
  }

  private static int pick(Random random) {
    int r = random.nextInt(100);
    for (int i = 0; i < WEIGHT.length; i++) {
      r -= WEIGHT[i];
      if (r < 0) {
        return i;
      }
    }
    return WEIGHT.length - 1;
  }

  private static List<String> sample(List<Device> devices, double share, Random random) {
    List<String> ids = new ArrayList<>(devices.stream().map(Device::id).toList());
    Collections.shuffle(ids, random);
    return List.copyOf(ids.subList(0, (int) Math.round(share * ids.size())));
  }
}
