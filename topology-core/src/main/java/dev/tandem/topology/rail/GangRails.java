package dev.tandem.topology.rail;

import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.PlacementScore;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.model.Device;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Planning the members of a gang on one rail set (docs/rails.md, "Planning a gang"). Pure: the one
 * {@link Allocator} plans every member, on a node's availability narrowed to the gang's rails
 * ({@link RailSets#onRails}).
 *
 * <p><b>The first member's rails</b> ({@link #choose}): among the candidate rail sets, the one that
 * leaves the most members placeable across the candidate nodes with their alignment met, then the
 * most placeable at all (a {@code preferred} member may go unaligned); remaining ties go to the set
 * with the fewest rails, then to the lowest (compared rail by rail, ascending). A member is
 * placeable on a node as many times as the allocator, planning one member after another on the node
 * narrowed to the set, finds room under the member's own alignment policy. The candidate sets are
 * the rails of the plans the allocator makes on each candidate node (its plan for one member, then
 * for a second on what the first leaves, and so on) whose HCAs are all on a rail. Bounded: nodes in
 * equal states (equal {@link Availability}) are planned once and counted with their number; at most
 * {@link #MAX_CANDIDATE_SETS} sets are weighed (the fewest and lowest rails first), so a choice
 * costs at most that many sets times the distinct node states times the members a node holds.
 *
 * <p><b>An empty rail set</b> means the gang has no rails to keep to (a request for no HCAs, or no
 * plan on railed HCAs anywhere: nodes whose HCAs carry no rail); its members are planned as pods
 * without a gang.
 */
public final class GangRails {

  /** The most candidate rail sets one {@link #choose} weighs. */
  public static final int MAX_CANDIDATE_SETS = 64;

  /** Fewest rails first, then the lowest, rail by rail. */
  public static final Comparator<SortedSet<Integer>> FEWEST_LOWEST =
      Comparator.<SortedSet<Integer>>comparingInt(Set::size)
          .thenComparing(
              (a, b) -> {
                Iterator<Integer> i = a.iterator();
                Iterator<Integer> j = b.iterator();
                while (i.hasNext() && j.hasNext()) {
                  int c = Integer.compare(i.next(), j.next());
                  if (c != 0) {
                    return c;
                  }
                }
                return 0;
              });

  /**
   * A node a member may go to.
   *
   * @param allocator the node's allocator
   * @param free what is free on it now
   */
  public record Candidate(Allocator allocator, Availability free) {}

  private GangRails() {}

  /**
   * The rail set of a gang's first member: the candidate set placing the most members across the
   * candidates, ties to the fewest then lowest rails (see the class comment); empty when the
   * request asks no HCA or no candidate plan is on railed HCAs only.
   */
  public static SortedSet<Integer> choose(
      AllocationRequest request, Collection<Candidate> candidates) {
    if (request.hcas() == 0) {
      return Collections.emptySortedSet();
    }
    Map<Availability, Weighted> states = states(candidates);
    TreeSet<SortedSet<Integer>> sets = new TreeSet<>(FEWEST_LOWEST);
    for (Weighted state : states.values()) {
      sets.addAll(planRails(request, state.candidate()));
    }
    SortedSet<Integer> best = Collections.emptySortedSet();
    Fits bestFits = new Fits(0, 0);
    int weighed = 0;
    for (SortedSet<Integer> rails : sets) {
      if (weighed++ == MAX_CANDIDATE_SETS) {
        break;
      }
      Fits fits = fits(request, states, rails);
      if (fits.beats(bestFits)) {
        best = rails;
        bestFits = fits;
      }
    }
    return best;
  }

  /**
   * Members placeable on these rails across the candidates (one after another on each node) with
   * their alignment met.
   */
  public static int placeable(
      AllocationRequest request, Collection<Candidate> candidates, Set<Integer> rails) {
    return fits(request, states(candidates), rails).aligned();
  }

  /**
   * A later member's verdict on the gang's rails: the allocator's on the node narrowed to {@code
   * rails}, scored by what the plan leaves free on the whole node (as the plain verdict is). Empty
   * {@code rails}: the plain verdict.
   */
  public static Verdict onRails(
      Allocator allocator, AllocationRequest request, Availability free, Set<Integer> rails) {
    if (rails.isEmpty()) {
      return allocator.verdict(request, free);
    }
    return Verdict.of(plan(allocator, request, free, rails));
  }

  /**
   * A later member's plan on the gang's rails: the allocator's on the node narrowed to {@code
   * rails}, its score by what it leaves free on the whole node. Empty {@code rails}: the plain
   * plan.
   */
  public static AllocationResult plan(
      Allocator allocator, AllocationRequest request, Availability free, Set<Integer> rails) {
    if (rails.isEmpty()) {
      return allocator.allocate(request, free);
    }
    AllocationResult result = allocator.allocate(request, RailSets.onRails(free, rails));
    if (!(result instanceof Allocation a)) {
      return result;
    }
    int left = devicesLeftFree(free.without(ids(a)));
    return new Allocation(
        a.gpus(),
        a.hcas(),
        a.worst(),
        PlacementScore.of(a.worst(), request.policy().alignment(), left));
  }

  /** A candidate state and how many candidate nodes are in it. */
  private record Weighted(Candidate candidate, int count) {}

  private static Map<Availability, Weighted> states(Collection<Candidate> candidates) {
    Map<Availability, Weighted> states = new LinkedHashMap<>();
    for (Candidate c : candidates) {
      states.merge(
          c.free(), new Weighted(c, 1), (a, b) -> new Weighted(a.candidate(), a.count() + 1));
    }
    return states;
  }

  /** The rails of the successive plans on the node whose HCAs are all on a rail. */
  private static List<SortedSet<Integer>> planRails(AllocationRequest request, Candidate node) {
    List<SortedSet<Integer>> out = new ArrayList<>();
    Availability free = node.free();
    while (node.allocator().allocate(request, free) instanceof Allocation a) {
      SortedSet<Integer> rails = RailSets.of(node.allocator().index().machine(), a.hcaIds());
      if (!rails.isEmpty() && allRailed(a)) {
        out.add(rails);
      }
      free = free.without(ids(a));
    }
    return out;
  }

  /**
   * Members placeable: with their alignment met, and at all (a {@code preferred} member may go
   * unaligned).
   */
  private record Fits(int aligned, int any) {
    boolean beats(Fits other) {
      return aligned != other.aligned ? aligned > other.aligned : any > other.any;
    }
  }

  private static Fits fits(
      AllocationRequest request, Map<Availability, Weighted> states, Set<Integer> rails) {
    int aligned = 0;
    int any = 0;
    for (Weighted state : states.values()) {
      Candidate node = state.candidate();
      Availability free = RailSets.onRails(node.free(), rails);
      while (node.allocator().allocate(request, free) instanceof Allocation a) {
        any += state.count();
        if (a.worst().isWithin(request.policy().alignment().worstAllowed())) {
          aligned += state.count();
        }
        free = free.without(ids(a));
      }
    }
    return new Fits(aligned, any);
  }

  private static boolean allRailed(Allocation a) {
    return a.hcas().stream().allMatch(d -> d.hca() != null && d.hca().rail() != null);
  }

  private static List<String> ids(Allocation a) {
    List<String> ids = new ArrayList<>(a.gpuIds());
    ids.addAll(a.hcaIds());
    return ids;
  }

  private static int devicesLeftFree(Availability free) {
    int left = 0;
    List<Device> devices = free.index().devices();
    for (int d = 0; d < devices.size(); d++) {
      left += free.free(d) > 0 ? 1 : 0;
    }
    return left;
  }
}
