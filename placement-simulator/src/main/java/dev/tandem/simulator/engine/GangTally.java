package dev.tandem.simulator.engine;

import dev.tandem.simulator.workload.GangMember;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The rail sets of every gang member started in one run, for the {@link GangFigure}. */
final class GangTally {

  private final Map<String, Integer> sizes = new LinkedHashMap<>();
  private final Map<String, List<Set<Integer>>> started = new HashMap<>();

  void arrived(GangMember gang) {
    sizes.putIfAbsent(gang.name(), gang.size());
  }

  void started(GangMember gang, Set<Integer> rails) {
    started.computeIfAbsent(gang.name(), g -> new ArrayList<>()).add(rails);
  }

  /** The figure, or null when no gang arrived. */
  GangFigure figure() {
    if (sizes.isEmpty()) {
      return null;
    }
    int members = 0;
    int whole = 0;
    int withPairs = 0;
    long pairs = 0;
    long cross = 0;
    int split = 0;
    for (Map.Entry<String, Integer> gang : sizes.entrySet()) {
      List<Set<Integer>> rails = started.getOrDefault(gang.getKey(), List.of());
      members += rails.size();
      whole += rails.size() == gang.getValue() ? 1 : 0;
      withPairs += rails.size() >= 2 ? 1 : 0;
      long crossHere = crossRailPairs(rails);
      pairs += (long) rails.size() * (rails.size() - 1) / 2;
      cross += crossHere;
      split += crossHere > 0 ? 1 : 0;
    }
    return new GangFigure(sizes.size(), members, whole, withPairs, pairs, cross, split);
  }

  /** Pairs of members whose rail sets differ. */
  static long crossRailPairs(List<Set<Integer>> rails) {
    long cross = 0;
    for (int i = 0; i < rails.size(); i++) {
      for (int j = i + 1; j < rails.size(); j++) {
        cross += rails.get(i).equals(rails.get(j)) ? 0 : 1;
      }
    }
    return cross;
  }
}
