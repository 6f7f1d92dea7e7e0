package dev.tandem.simulator.workload;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Checks a trace's gangs across rows: every member of one gang gives the same size and rail
 * alignment, no gang has more members than its size, and no rank is given twice.
 */
final class GangLedger {

  private final Map<String, Seen> gangs = new HashMap<>();

  /** What the trace said of a gang so far. */
  private static final class Seen {
    final GangMember first;
    final BitSet ranks = new BitSet();
    int members;

    Seen(GangMember first) {
      this.first = first;
    }
  }

  /**
   * Returns the pod, or throws what {@code error} makes of the first disagreement.
   *
   * @param error a trace error for a field of the pod's row
   */
  PodSpec admit(PodSpec pod, BiFunction<String, String, TraceException> error) {
    GangMember g = pod.gang();
    if (g == null) {
      return pod;
    }
    Seen seen = gangs.computeIfAbsent(g.name(), n -> new Seen(g));
    if (seen.first.size() != g.size()) {
      throw error.apply(
          TraceReader.GANG_SIZE,
          g.size()
              + " differs from the size "
              + seen.first.size()
              + " an earlier member of gang '"
              + g.name()
              + "' gives");
    }
    if (seen.first.railAlignment() != g.railAlignment()) {
      throw error.apply(
          TraceReader.RAIL_ALIGNMENT,
          g.railAlignment().name().toLowerCase(Locale.ROOT)
              + " differs from an earlier member of gang '"
              + g.name()
              + "'");
    }
    if (++seen.members > g.size()) {
      throw error.apply(
          TraceReader.GANG,
          "gang '" + g.name() + "' of size " + g.size() + " has more members than that");
    }
    if (g.rank() != null) {
      if (seen.ranks.get(g.rank())) {
        throw error.apply(
            TraceReader.GANG_RANK,
            "rank " + g.rank() + " of gang '" + g.name() + "' is given to two pods");
      }
      seen.ranks.set(g.rank());
    }
    return pod;
  }
}
