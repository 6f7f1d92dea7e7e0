package dev.tandem.extender.verbs;

import java.util.Arrays;

/**
 * The filter's answer for the nodes of one request, by input index (no map per request: the answer
 * is encoded straight from these arrays).
 *
 * @param passed {@code passed[i]} for the i-th input node
 * @param reasons why the i-th node failed; null where it passed
 * @param unresolvable whether the i-th node's failure cannot be helped by preemption ({@code
 *     FailedAndUnresolvableNodes}) rather than maybe ({@code FailedNodes})
 * @param counts nodes per {@link Outcome} ordinal, for metrics
 */
public record FilterVerdict(
    boolean[] passed, String[] reasons, boolean[] unresolvable, int[] counts) {

  /** Every one of the nodes passes, for the same reason. */
  public static FilterVerdict allPassed(int nodes, Outcome why) {
    FilterVerdict v = sized(nodes);
    Arrays.fill(v.passed, true);
    v.counts[why.ordinal()] = nodes;
    return v;
  }

  static FilterVerdict sized(int nodes) {
    return new FilterVerdict(
        new boolean[nodes],
        new String[nodes],
        new boolean[nodes],
        new int[Outcome.values().length]);
  }

  void pass(int i, Outcome outcome) {
    passed[i] = true;
    counts[outcome.ordinal()]++;
  }

  void fail(int i, String reason, boolean cannotResolve, Outcome outcome) {
    reasons[i] = reason;
    unresolvable[i] = cannotResolve;
    counts[outcome.ordinal()]++;
  }

  /** Whether the i-th node failed and belongs in the map asked for. */
  public boolean failedIn(int i, boolean unresolvableMap) {
    return reasons[i] != null && unresolvable[i] == unresolvableMap;
  }
}
