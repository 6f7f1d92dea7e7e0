package dev.tandem.simulator.engine;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;

/**
 * The running members of each gang and their rails, as the extender reads them from the bound
 * members' plans (docs/rails.md): the gang's rails are its first running member's, and a gang with
 * no member running has none (its rails are released).
 */
public final class GangState {

  private final Map<String, Map<Integer, SortedSet<Integer>>> running = new HashMap<>();

  /** The rails of the gang's earliest-started running member, if any runs. */
  public Optional<SortedSet<Integer>> rails(String gang) {
    Map<Integer, SortedSet<Integer>> members = running.get(gang);
    return members == null ? Optional.empty() : members.values().stream().findFirst();
  }

  /** How many of the gang's members run now. */
  public int running(String gang) {
    Map<Integer, SortedSet<Integer>> members = running.get(gang);
    return members == null ? 0 : members.size();
  }

  void started(String gang, int pod, SortedSet<Integer> rails) {
    running.computeIfAbsent(gang, g -> new LinkedHashMap<>()).put(pod, rails);
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
