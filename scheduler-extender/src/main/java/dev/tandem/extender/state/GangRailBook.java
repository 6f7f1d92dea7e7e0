package dev.tandem.extender.state;

import dev.tandem.topology.rail.GangRails;
import dev.tandem.topology.rail.RailSets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The rails of each gang (docs/rails.md, "Planning a gang"): where its members were placed, and the
 * rail set its first member chose before any was placed. Members come from the plans of the pods on
 * nodes ({@code tandem.dev/plan}, fed by the pod informer: how the gang's rails survive an extender
 * restart) and from this replica's binds; a member leaves when its pod is gone, and a gang with no
 * member left is forgotten. A member's rails are read from its node's tree when asked ({@link
 * RailSets#of}), so a plan seen before its node's NodeTopology still counts once the tree arrives.
 * Gang pods are rare: one lock for the whole book; a pod in no gang never touches it but for {@link
 * #gone}, a map lookup.
 */
public final class GangRailBook {

  /**
   * How long a choice is kept while no member is placed on it: a first member that is never bound
   * (deleted while pending) does not hold its gang's rails for longer.
   */
  public static final Duration CHOICE_TTL = Duration.ofMinutes(10);

  /**
   * A book of no cluster's, whose members' nodes are never known: for verbs built outside a
   * cluster's parts (benchmarks, tests of pods in no gang).
   */
  public static GangRailBook alone() {
    return new GangRailBook(name -> null, Clock.systemUTC(), CHOICE_TTL);
  }

  /** A placed member: its pod, its node and the HCAs its plan holds there. */
  private record Member(PodRef pod, String node, List<String> hcas) {}

  /**
   * A placed member's rails, read on its node's tree.
   *
   * @param pod the member
   * @param node its node
   * @param rails the rails of its plan's HCAs there, never empty
   */
  public record MemberRails(PodRef pod, String node, SortedSet<Integer> rails) {}

  /**
   * The first member's choice, for the gang's other members and its own bind until a member is
   * placed.
   *
   * @param uid the member that chose
   * @param rails the rails chosen
   * @param at when
   */
  public record Choice(String uid, SortedSet<Integer> rails, Instant at) {}

  private final Function<String, NodeEntry> nodes;
  private final Clock clock;
  private final Duration choiceTtl;
  private final Map<String, Map<String, Member>> members = new HashMap<>();
  private final Map<String, Choice> choices = new HashMap<>();
  private final Map<String, String> gangOf = new ConcurrentHashMap<>();

  /**
   * @param nodes a node's entry by name (null when unknown): where a member's rails are read
   * @param clock when choices are made
   * @param choiceTtl how long a choice no member was placed on is kept
   */
  public GangRailBook(Function<String, NodeEntry> nodes, Clock clock, Duration choiceTtl) {
    this.nodes = nodes;
    this.clock = clock;
    this.choiceTtl = choiceTtl;
  }

  /** A member of the gang was placed on the node with these HCAs (a plan seen or made). */
  public synchronized void placed(String gang, PodRef pod, String node, List<String> hcas) {
    members
        .computeIfAbsent(gang, g -> new LinkedHashMap<>())
        .put(pod.uid(), new Member(pod, node, hcas));
    gangOf.put(pod.uid(), gang);
  }

  /** The pod is gone (deleted, finished, or its bind failed): it is no longer a member. */
  public void gone(String uid) {
    if (!gangOf.containsKey(uid)) {
      return;
    }
    synchronized (this) {
      String gang = gangOf.remove(uid);
      Map<String, Member> left = gang == null ? null : members.get(gang);
      if (left != null) {
        left.remove(uid);
        if (left.isEmpty()) {
          members.remove(gang);
          choices.remove(gang);
        }
      }
    }
  }

  /**
   * The rails of the gang's placed members: the set the most members are on, ties to the fewest
   * then lowest rails ({@link GangRails#FEWEST_LOWEST}); empty when no member is placed on a known
   * node with railed HCAs.
   */
  public synchronized SortedSet<Integer> memberRails(String gang) {
    Map<SortedSet<Integer>, Integer> votes = new TreeMap<>(GangRails.FEWEST_LOWEST);
    for (MemberRails m : railedMembers(gang)) {
      votes.merge(m.rails(), 1, Integer::sum);
    }
    SortedSet<Integer> best = Collections.emptySortedSet();
    int most = 0;
    for (Map.Entry<SortedSet<Integer>, Integer> e : votes.entrySet()) {
      if (e.getValue() > most) {
        best = e.getKey();
        most = e.getValue();
      }
    }
    return best;
  }

  /**
   * The gang's placed members on known nodes whose plans hold railed HCAs, in the order they were
   * first placed.
   */
  public synchronized List<MemberRails> railedMembers(String gang) {
    List<MemberRails> out = new ArrayList<>();
    for (Member m : members.getOrDefault(gang, Map.of()).values()) {
      NodeEntry node = nodes.apply(m.node());
      SortedSet<Integer> rails = node == null ? null : RailSets.of(node.machine(), m.hcas());
      if (rails != null && !rails.isEmpty()) {
        out.add(new MemberRails(m.pod(), m.node(), rails));
      }
    }
    return out;
  }

  /** How many gangs have placed members on more than one rail set now. */
  public synchronized int splitGangs() {
    int split = 0;
    for (String gang : members.keySet()) {
      if (railedMembers(gang).stream().map(MemberRails::rails).distinct().count() > 1) {
        split++;
      }
    }
    return split;
  }

  /** The gang's unexpired choice; null when none. */
  public synchronized Choice choice(String gang) {
    Choice c = choices.get(gang);
    if (c != null && c.at().plus(choiceTtl).isBefore(clock.instant())) {
      choices.remove(gang);
      return null;
    }
    return c;
  }

  /** The member {@code uid} chose these rails for the gang. */
  public synchronized void chose(String gang, String uid, SortedSet<Integer> rails) {
    choices.put(gang, new Choice(uid, rails, clock.instant()));
  }

  /** The gangs with a placed member, each with its members' rails: for inspection and tests. */
  public synchronized Map<String, SortedSet<Integer>> gangs() {
    Map<String, SortedSet<Integer>> out = new TreeMap<>();
    for (String gang : members.keySet()) {
      out.put(gang, memberRails(gang));
    }
    return out;
  }
}
