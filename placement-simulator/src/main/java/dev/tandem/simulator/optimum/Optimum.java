package dev.tandem.simulator.optimum;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.engine.RunLimits;
import dev.tandem.simulator.engine.Simulation;
import dev.tandem.simulator.policy.JointMode;
import dev.tandem.simulator.policy.NodeRanking;
import dev.tandem.simulator.workload.PodSpec;
import java.util.List;
import java.util.OptionalInt;

/**
 * The optimum a policy is measured against: pods started aligned at their arrival (a loss system:
 * no waiting), with clairvoyant placement. Exact by branch and bound when the trace is small enough
 * and the search finishes within its budget; otherwise {@link OptimumBound}'s upper bound.
 */
public final class Optimum {

  /** Traces up to this many pods are searched exactly. */
  public static final int EXACT_POD_LIMIT = 24;

  /** Search steps before the exact search gives up. */
  public static final long SEARCH_BUDGET = 2_000_000;

  private Optimum() {}

  /** Computes it; {@code deadlineNanos} is a {@link System#nanoTime()} value. */
  public static OptimumResult of(Cluster cluster, List<PodSpec> pods, long deadlineNanos) {
    long start = System.nanoTime();
    String note;
    if (pods.size() <= EXACT_POD_LIMIT) {
      int incumbent = 0;
      for (NodeRanking ranking : NodeRanking.values()) {
        incumbent =
            Math.max(
                incumbent,
                new Simulation(cluster, pods, RunLimits.of(0, 1))
                    .run(new JointMode(ranking), share -> {})
                    .aligned());
      }
      OptionalInt exact =
          new ExactOptimum(cluster, pods, incumbent, SEARCH_BUDGET, deadlineNanos).solve();
      if (exact.isPresent()) {
        return new OptimumResult(
            "exact", pods.size(), exact.getAsInt(), "branch and bound", seconds(start), false);
      }
      note = "branch and bound ran out of budget or time; LP dual bound instead";
    } else {
      note = "more than " + EXACT_POD_LIMIT + " pods: LP dual bound (alignable devices over time)";
    }
    int bound = OptimumBound.of(cluster, pods, deadlineNanos);
    boolean cut = deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0;
    return new OptimumResult(
        "upper bound",
        pods.size(),
        bound,
        cut ? note + "; cut short by the time limit, so looser" : note,
        seconds(start),
        cut);
  }

  /** The exact optimum, or empty past the budget; for tests and small studies. */
  public static OptionalInt exact(Cluster cluster, List<PodSpec> pods, long budget) {
    return new ExactOptimum(cluster, pods, 0, budget, Long.MAX_VALUE).solve();
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }
}
