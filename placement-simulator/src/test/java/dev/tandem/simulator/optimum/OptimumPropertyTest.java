package dev.tandem.simulator.optimum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.engine.PolicyResult;
import dev.tandem.simulator.engine.RunLimits;
import dev.tandem.simulator.engine.Simulation;
import dev.tandem.simulator.policy.JointMode;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;

/**
 * The branch and bound equals a brute force over every placement of small random traces on small
 * random clusters, also when seeded with joint mode's count; the LP dual bound is never below it,
 * and joint mode never above.
 */
class OptimumPropertyTest {

  @Property(tries = 300)
  @Label("exact optimum equals brute force; bound ≥ optimum ≥ joint mode")
  void exactEqualsBruteForce(@ForAll long seed) {
    Random random = new Random(seed);
    List<SimNode> nodes = new ArrayList<>();
    int count = 1 + random.nextInt(2);
    for (int n = 0; n < count; n++) {
      nodes.addAll(SmallClusters.of(SmallClusters.random(random, "m" + n), 1).nodes());
    }
    Cluster cluster = new Cluster(nodes);
    List<PodSpec> pods = new ArrayList<>();
    double t = 0;
    int podCount = 1 + random.nextInt(5);
    for (int i = 0; i < podCount; i++) {
      t += random.nextInt(3);
      pods.add(
          new PodSpec(
              i,
              t,
              1 + random.nextInt(2),
              1 + random.nextInt(2),
              AlignmentPolicy.DEFAULT,
              1 + random.nextInt(4)));
    }
    int exact = Optimum.exact(cluster, pods, Long.MAX_VALUE).getAsInt();
    assertEquals(new BruteForce(cluster, pods).best(), exact, () -> describe(cluster, pods));
    OptimumResult seeded = Optimum.of(cluster, pods, Long.MAX_VALUE);
    assertTrue(seeded.exact(), "small instance not solved exactly");
    assertEquals(exact, seeded.aligned(), "search seeded with joint mode's count differs");
    assertTrue(OptimumBound.of(cluster, pods) >= exact, "bound below the optimum");
    PolicyResult joint =
        new Simulation(cluster, pods, RunLimits.of(0, seed)).run(new JointMode(), share -> {});
    assertTrue(joint.aligned() <= exact, "joint mode above the optimum");
  }

  private static String describe(Cluster cluster, List<PodSpec> pods) {
    StringBuilder s = new StringBuilder();
    cluster.nodes().forEach(n -> s.append(n.index().devices().stream().map(Device::id).toList()));
    return s.append(" ").append(pods).toString();
  }

  /**
   * Every aligned placement of every pod, or none, checked only for free devices: every subset of
   * the node's GPUs and HCAs, no merging, pruning or bound. An unaligned placement would only take
   * devices, so it is never better than none and is left out.
   */
  private static final class BruteForce {
    private final Cluster cluster;
    private final List<PodSpec> pods;
    private final List<int[]> chosen = new ArrayList<>();
    private int best;

    BruteForce(Cluster cluster, List<PodSpec> pods) {
      this.cluster = cluster;
      this.pods = pods;
    }

    int best() {
      walk(0, 0);
      return best;
    }

    /** chosen.get(i) = {node, device...} for pod i, or {-1}. */
    private void walk(int i, int aligned) {
      if (i == pods.size()) {
        best = Math.max(best, aligned);
        return;
      }
      PodSpec pod = pods.get(i);
      chosen.add(new int[] {-1});
      walk(i + 1, aligned);
      chosen.remove(i);
      for (int n = 0; n < cluster.nodes().size(); n++) {
        LocalityIndex index = cluster.nodes().get(n).index();
        for (List<Integer> gs : subsets(index, DeviceKind.GPU, pod.gpus())) {
          for (List<Integer> hs : subsets(index, DeviceKind.HCA, pod.hcas())) {
            if (isAligned(index, pod, gs, hs) && free(i, n, gs) && free(i, n, hs)) {
              int[] pick = new int[1 + gs.size() + hs.size()];
              pick[0] = n;
              for (int k = 0; k < gs.size(); k++) {
                pick[1 + k] = gs.get(k);
              }
              for (int k = 0; k < hs.size(); k++) {
                pick[1 + gs.size() + k] = hs.get(k);
              }
              chosen.add(pick);
              walk(i + 1, aligned + 1);
              chosen.remove(i);
            }
          }
        }
      }
    }

    private boolean free(int i, int node, List<Integer> devices) {
      for (int j = 0; j < i; j++) {
        int[] c = chosen.get(j);
        PodSpec p = pods.get(j);
        if (c[0] == node && p.arrival() + p.duration() > pods.get(i).arrival()) {
          for (int k = 1; k < c.length; k++) {
            if (devices.contains(c[k])) {
              return false;
            }
          }
        }
      }
      return true;
    }

    private static boolean isAligned(
        LocalityIndex index, PodSpec pod, List<Integer> gs, List<Integer> hs) {
      int[] gpus = gs.stream().mapToInt(Integer::intValue).toArray();
      int[] hcas = hs.stream().mapToInt(Integer::intValue).toArray();
      return index.pairing(gpus, hcas).isWithin(pod.policy().alignment().worstAllowed());
    }

    private static List<List<Integer>> subsets(LocalityIndex index, DeviceKind kind, int size) {
      List<Integer> items = new ArrayList<>();
      for (int d = 0; d < index.devices().size(); d++) {
        if (index.devices().get(d).kind() == kind) {
          items.add(d);
        }
      }
      List<List<Integer>> out = new ArrayList<>();
      for (int[] c : AlignedSets.combinations(items, size)) {
        out.add(Arrays.stream(c).boxed().toList());
      }
      return out;
    }
  }
}
