package dev.tandem.extender.scheduling;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The filter's answer for the nodes of one request, in input order.
 *
 * @param passed {@code passed[i]} for the i-th input node
 * @param failed node to reason, where preemption may help
 * @param unresolvable node to reason, where preemption cannot help
 * @param counts nodes per {@link Outcome} ordinal, for metrics
 */
public record FilterVerdict(boolean[] passed, Map<String, String> failed,
    Map<String, String> unresolvable, int[] counts) {

  static FilterVerdict sized(int nodes) {
    return new FilterVerdict(new boolean[nodes], new LinkedHashMap<>(), new LinkedHashMap<>(),
        new int[Outcome.values().length]);
  }

  void count(Outcome outcome) {
    counts[outcome.ordinal()]++;
  }
}
