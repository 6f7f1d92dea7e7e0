package dev.tandem.benchmarks.extender;

import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.extender.state.Resources;
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

  /** A ready cluster state of {@code nodes} nodes; the same seed gives the same cluster. */
  static ClusterState build(int nodes, long seed) {
    ClusterState state = DemoCluster.fromBundledFixtures(nodes);
    Random random = new Random(seed);
    int index = 0;
    for (NodeEntry e : state.nodes()) {
      state.putTopology(e.machine(), e.slotsPerHca(), taken(e.machine(), index++, random));
    }
    return state;
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
      out.add(new ReportedAllocation("ml-training", pod, uid, "trainer", Resources.GPU, gpus));
    }
    if (!hcas.isEmpty()) {
      out.add(new ReportedAllocation("ml-training", pod, uid, "trainer", Resources.HCA, hcas));
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
