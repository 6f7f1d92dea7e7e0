package dev.tandem.simulator.optimum;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.workload.PodSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/**
 * Branch and bound over every placement: pods in arrival order, each either started at its arrival
 * on an aligned set of free devices ({@link AlignedSets}) of some node, held for its duration, or
 * left out. Maximizes the pods started aligned. Prunes with (pods started + alignable pods left ≤
 * best so far), by the optimum of the pods left (see {@link #solve}), and skips a node identical
 * (same topology, same free devices) to one already tried. Starts from a known feasible count (a
 * policy's result in a loss system) so that it prunes early. Gives up, returning empty, past a
 * budget of search steps or a deadline.
 */
final class ExactOptimum {

  private final List<SimNode> nodes;
  private final List<PodSpec> pods;
  private final boolean[][] used;
  private final int[] alignableAfter;

  /** suffixBest[i]: the optimum of pods i.. on the empty cluster, once solved. */
  private final int[] suffixBest;

  private final long budget;
  private final long deadlineNanos;
  private final List<Running> running = new ArrayList<>();
  private long steps;
  private int best;

  ExactOptimum(
      Cluster cluster, List<PodSpec> pods, int incumbent, long budget, long deadlineNanos) {
    this.nodes = cluster.nodes();
    this.pods = List.copyOf(pods);
    this.used = new boolean[nodes.size()][];
    for (int i = 0; i < nodes.size(); i++) {
      used[i] = new boolean[nodes.get(i).index().devices().size()];
    }
    this.alignableAfter = new int[pods.size() + 1];
    this.suffixBest = new int[pods.size() + 1];
    for (int i = pods.size() - 1; i >= 0; i--) {
      alignableAfter[i] =
          alignableAfter[i + 1] + (Alignable.anywhere(cluster, pods.get(i)) ? 1 : 0);
    }
    this.best = incumbent;
    this.budget = budget;
    this.deadlineNanos = deadlineNanos;
  }

  /**
   * The optimum, or empty when the search ran out of budget or time. Russian-doll search: the
   * suffixes of the trace are solved from the last pod back, each on the empty cluster, and each
   * suffix's optimum bounds what those pods can add in any later search (a search state only has
   * fewer free devices than the empty cluster).
   */
  OptionalInt solve() {
    int incumbent = best;
    try {
      for (int k = pods.size() - 1; k >= 0; k--) {
        best = k == 0 ? Math.max(incumbent, suffixBest[k + 1]) : suffixBest[k + 1];
        search(k, k, 0);
        suffixBest[k] = best;
      }
      return OptionalInt.of(suffixBest[0]);
    } catch (OutOfBudget e) {
      return OptionalInt.empty();
    }
  }

  private void search(int start, int i, int count) {
    if (++steps > budget || ((steps & 1023) == 0 && pastDeadline())) {
      throw new OutOfBudget();
    }
    int left = i == start ? alignableAfter[i] : Math.min(alignableAfter[i], suffixBest[i]);
    if (count + left <= best) {
      return;
    }
    if (i == pods.size()) {
      best = count;
      return;
    }
    PodSpec pod = pods.get(i);
    List<Running> released = release(pod.arrival());
    for (int n = 0; n < nodes.size(); n++) {
      if (!sameAsEarlier(n)) {
        for (int[] set :
            AlignedSets.of(
                nodes.get(n).index(),
                used[n],
                pod.gpus(),
                pod.hcas(),
                pod.policy().alignment().worstAllowed())) {
          Running r = new Running(pod.arrival() + pod.duration(), n, set);
          mark(r, true);
          running.add(r);
          search(start, i + 1, count + 1);
          removeSame(r);
          mark(r, false);
        }
      }
    }
    search(start, i + 1, count);
    for (Running r : released) {
      mark(r, true);
      running.add(r);
    }
  }

  /** Removes this very entry: a deeper search may have released and re-added others after it. */
  private void removeSame(Running r) {
    for (int k = running.size() - 1; k >= 0; k--) {
      if (running.get(k) == r) {
        running.remove(k);
        return;
      }
    }
    throw new IllegalStateException("search lost track of a running pod");
  }

  private boolean pastDeadline() {
    return deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0;
  }

  private List<Running> release(double t) {
    List<Running> out = new ArrayList<>();
    for (int k = running.size() - 1; k >= 0; k--) {
      if (running.get(k).end() <= t) {
        Running r = running.remove(k);
        mark(r, false);
        out.add(r);
      }
    }
    return out;
  }

  private boolean sameAsEarlier(int n) {
    for (int m = 0; m < n; m++) {
      if (nodes.get(m).allocator() == nodes.get(n).allocator() && Arrays.equals(used[m], used[n])) {
        return true;
      }
    }
    return false;
  }

  private void mark(Running r, boolean value) {
    for (int d : r.devices()) {
      used[r.node()][d] = value;
    }
  }

  private record Running(double end, int node, int[] devices) {}

  /** Thrown to unwind the search when the budget is spent. */
  private static final class OutOfBudget extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OutOfBudget() {
      super(null, null, false, false);
    }
  }
}
