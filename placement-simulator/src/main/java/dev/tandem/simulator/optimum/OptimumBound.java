package dev.tandem.simulator.optimum;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * An upper bound on the pods that can start aligned, for instances too large to search.
 *
 * <p><b>Why it bounds.</b> A GPU can serve an aligned pod only if an HCA sits in its group at the
 * pod's alignment level (for {@code switch}: its PXB group); call such GPUs alignable, A_n of them
 * on node n (the loosest level of the trace is used, so every pod is covered), and likewise for
 * HCAs. Let x_i ∈ {0,1} say pod i starts aligned; x_i = 0 for a pod that fits aligned on no empty
 * node. A pod with at least k GPUs takes at least k alignable GPUs of one node, so at every time t
 * and for every k: #{aligned pods running at t with ≥ k GPUs} ≤ C_k = Σ_n ⌊A_n / k⌋, and the GPUs
 * they hold number at most Σ_n A_n; the same for HCAs. Relaxing x_i to [0,1] gives a linear program
 * whose optimum bounds the integer one; by weak duality any duals y_c(t) ≥ 0 give the bound Σ_c C_c
 * ∫y_c + Σ_i max(0, 1 − Σ_c a_{ci} ∫_{I_i} y_c). Here each y_c is constant on windows and chosen by
 * coordinate descent; every point visited is a valid bound and the smallest is kept.
 */
final class OptimumBound {

  private static final int WINDOWS = 200;
  private static final int SWEEPS = 15;

  private OptimumBound() {}

  static int of(Cluster cluster, List<PodSpec> pods) {
    return of(cluster, pods, Long.MAX_VALUE);
  }

  /** The bound, computed until {@code deadlineNanos} at the latest (a looser one if cut short). */
  static int of(Cluster cluster, List<PodSpec> pods, long deadlineNanos) {
    Locality level = Locality.PXB;
    for (PodSpec p : pods) {
      level = Locality.worse(level, p.policy().alignment().worstAllowed());
    }
    List<PodSpec> candidates = new ArrayList<>();
    for (PodSpec p : pods) {
      if (Alignable.anywhere(cluster, p)) {
        candidates.add(p);
      }
    }
    if (candidates.isEmpty()) {
      return 0;
    }
    List<Constraint> constraints = new ArrayList<>();
    for (DeviceKind kind : DeviceKind.values()) {
      int[] alignable = alignable(cluster, kind, level);
      constraints.add(new Constraint(kind, 0, sum(alignable, 1)));
      TreeSet<Integer> sizes = new TreeSet<>();
      candidates.forEach(p -> sizes.add(kind == DeviceKind.GPU ? p.gpus() : p.hcas()));
      for (int k : sizes) {
        if (k > 0) {
          constraints.add(new Constraint(kind, k, sum(alignable, k)));
        }
      }
    }
    double bound =
        new DualDescent(candidates, constraints, WINDOWS).minimize(SWEEPS, deadlineNanos);
    return (int) Math.floor(Math.min(candidates.size(), bound) + 1e-9);
  }

  private static int sum(int[] alignable, int k) {
    int s = 0;
    for (int a : alignable) {
      s += a / k;
    }
    return s;
  }

  /** Per node: devices of a kind whose group at {@code level} holds a device of the other kind. */
  static int[] alignable(Cluster cluster, DeviceKind kind, Locality level) {
    int[] out = new int[cluster.nodes().size()];
    for (int n = 0; n < out.length; n++) {
      SimNode node = cluster.nodes().get(n);
      LocalityIndex index = node.index();
      int size = index.devices().size();
      for (int a = 0; a < size; a++) {
        if (index.devices().get(a).kind() != kind || !index.devices().get(a).healthy()) {
          continue;
        }
        for (int b = 0; b < size; b++) {
          if (index.devices().get(b).kind() != kind && index.locality(a, b).isWithin(level)) {
            out[n]++;
            break;
          }
        }
      }
    }
    return out;
  }

  /**
   * One family of the relaxation: with {@code atLeast} 0, the units of {@code kind} held by aligned
   * pods; otherwise the number of aligned pods asking at least {@code atLeast} units.
   */
  record Constraint(DeviceKind kind, int atLeast, int capacity) {

    double coefficient(PodSpec p) {
      int units = kind == DeviceKind.GPU ? p.gpus() : p.hcas();
      return atLeast == 0 ? units : units >= atLeast ? 1 : 0;
    }
  }
}
