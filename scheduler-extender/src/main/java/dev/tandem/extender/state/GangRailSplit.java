package dev.tandem.extender.state;

import dev.tandem.extender.state.GangRailBook.MemberRails;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;

/**
 * A gang whose placed members are on more than one rail set (docs/rails.md, "The audit of a gang's
 * rails"): the set most of them are on, and each member that breaks it. On a tie the gang is on the
 * set of its member placed first, so that a later member placed off the gang's rails is the one
 * that breaks them. Pure.
 *
 * @param gang the gang's key, {@code namespace/name}
 * @param rails the set most members are on
 * @param on the members on it
 * @param members the gang's members with railed plans
 * @param off the members on another set, in the order they were placed
 */
public record GangRailSplit(
    String gang,
    SortedSet<Integer> rails,
    List<MemberRails> on,
    int members,
    List<MemberRails> off) {

  /** The gang's split; empty when its railed members are all on one set (or none is). */
  public static Optional<GangRailSplit> of(String gang, List<MemberRails> railed) {
    Map<SortedSet<Integer>, List<MemberRails>> bySet = new LinkedHashMap<>();
    railed.forEach(m -> bySet.computeIfAbsent(m.rails(), r -> new ArrayList<>()).add(m));
    if (bySet.size() < 2) {
      return Optional.empty();
    }
    SortedSet<Integer> most = null;
    for (Map.Entry<SortedSet<Integer>, List<MemberRails>> e : bySet.entrySet()) {
      if (most == null || e.getValue().size() > bySet.get(most).size()) {
        most = e.getKey();
      }
    }
    SortedSet<Integer> rails = most;
    List<MemberRails> off = railed.stream().filter(m -> !m.rails().equals(rails)).toList();
    return Optional.of(new GangRailSplit(gang, rails, bySet.get(rails), railed.size(), off));
  }

  /**
   * What the Event on a member off the gang's rails says, e.g. {@code gang ml/job-a: member ml/w-3
   * on node n7 uses rails [0, 1, 2, 3]; the gang is on [4, 5, 6, 7] (2 of 3 members, on nodes n1,
   * n2)}.
   */
  public String message(MemberRails member) {
    return "gang "
        + gang
        + ": member "
        + member.pod().namespace()
        + "/"
        + member.pod().name()
        + " on node "
        + member.node()
        + " uses rails "
        + member.rails()
        + "; the gang is on "
        + rails
        + " ("
        + on.size()
        + " of "
        + members
        + " members, on nodes "
        + String.join(", ", on.stream().map(MemberRails::node).distinct().sorted().toList())
        + ")";
  }
}
