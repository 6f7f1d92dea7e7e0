package dev.tandem.simulator.engine;

import dev.tandem.topology.rail.GangRails;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;

/**
 * The running members of each gang and the rails of their plans, where the extender reads them
 * (docs/rails.md, "Planning a gang"): the gang's rails are the set the most running members' plans
 * are on (ties: the fewest rails, then the lowest), and a gang with no member running has none (its
 * rails are released).
 */
public final class GangState {

  private final Map<String, Map<Integer, SortedSet<Integer>>> running = new HashMap<>();

  /** The rail set the most running members of the gang are planned on, if any runs. */
  public Optional<SortedSet<Integer>> rails(String gang) {
    Map<Integer, SortedSet<Integer>> members = running.get(gang);
    if (members == null) {
      return Optional.empty();
    }
    Map<SortedSet<Integer>, Integer> counts = new HashMap<>();
    members.values().forEach(r -> counts.merge(r, 1, Integer::sum));
    SortedSet<Integer> best = null;
    for (Map.Entry<SortedSet<Integer>, Integer> e : counts.entrySet()) {
      int c = e.getValue();
      if (best == null
          || c > counts.get(best)
          || (c == counts.get(best) && GangRails.FEWEST_LOWEST.compare(e.getKey(), best) < 0)) {
        best = e.getKey();
      }
    }
    return Optional.of(best);
  }

  void started(String gang, int pod, SortedSet<Integer> rails) {
    running.computeIfAbsent(gang, g -> new HashMap<>()).put(pod, rails);
  }

  void ended(String gang, int pod) {
    Map<Integer, SortedSet<Integer>> members = running.get(gang);
    if (members != null) {
      members.remove(pod);
      if (members.isEmpty()) {
        running.remove(gang);
      }
    }
  }
}
