package dev.tandem.extender.verbs;

import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.GangRailBook;
import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.rail.GangRails;
import dev.tandem.topology.rail.GangRails.Candidate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;

/**
 * How a gang member is judged and planned on its gang's rails (docs/rails.md, "Planning a gang").
 * The rails are, in order: those of the gang's placed members ({@link GangRailBook#memberRails});
 * else another member's choice; else the member's own choice over the candidate nodes ({@link
 * GangRails#choose}), recorded for the gang. Every member, ranked or not, is planned on that one
 * set. Gang pods are rare: their verdicts are computed on every call, never cached or shared.
 */
final class GangPlacement {

  private final GangRailBook book;

  GangPlacement(GangRailBook book) {
    this.book = book;
  }

  /**
   * The rails to judge the member on over these nodes; empty when the gang has none to keep to.
   *
   * @param rechoose whether a choice this member made itself is made again (filter: the nodes have
   *     changed since); prioritize reads the choice its filter made
   */
  SortedSet<Integer> rails(PodRequest pod, CandidateNodes nodes, boolean rechoose) {
    String gang = pod.gang().key();
    SortedSet<Integer> placed = book.memberRails(gang);
    if (!placed.isEmpty()) {
      return placed;
    }
    GangRailBook.Choice choice = book.choice(gang);
    if (choice != null && !(rechoose && choice.uid().equals(pod.pod().uid()))) {
      return choice.rails();
    }
    List<Candidate> candidates = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      NodeCell cell = nodes.cell(i);
      NodeEntry node = cell == null ? null : cell.entry();
      if (node != null) {
        candidates.add(new Candidate(node.allocator(), node.free()));
      }
    }
    SortedSet<Integer> chosen = GangRails.choose(pod.request(), candidates);
    if (!chosen.isEmpty()) {
      book.chose(gang, pod.pod().uid(), chosen);
    }
    return chosen;
  }

  /** The rails at bind: the members' or a choice; empty when there is none yet. */
  SortedSet<Integer> rails(PodRequest pod) {
    String gang = pod.gang().key();
    SortedSet<Integer> placed = book.memberRails(gang);
    if (!placed.isEmpty()) {
      return placed;
    }
    GangRailBook.Choice choice = book.choice(gang);
    return choice == null ? placed : choice.rails();
  }

  /** The member's verdict on the node, on these rails (the plain one when there are none). */
  static Verdict onRails(NodeEntry node, AllocationRequest request, Set<Integer> rails) {
    return GangRails.onRails(node.allocator(), request, node.free(), rails);
  }

  /**
   * The filter's reason for a node that cannot place a {@code required} member on its gang's rails.
   * Names no node: kube-scheduler counts equal reasons across nodes.
   */
  static String refusal(PodRequest pod, Set<Integer> rails, Infeasible no) {
    return "gang "
        + pod.gang().key()
        + " is on rails "
        + rails
        + " (tandem.dev/rail-alignment=required) and this node cannot place "
        + pod.request().describe()
        + " on them: "
        + no.reason();
  }

  /** The member's bind: the gang's rails recorded once its plan is made. */
  Planner planner(PodRequest pod) {
    return new Planner(pod, rails(pod));
  }

  /** The member placed: its plan's HCAs now hold the gang's rails. */
  void placed(PodRequest pod, String node, List<String> hcas) {
    book.placed(pod.gang().key(), pod.pod(), node, hcas);
  }

  /** A failed bind: the member was not placed after all. */
  void unplaced(PodRequest pod) {
    book.gone(pod.pod().uid());
  }

  /**
   * A gang member's plan on its node, inside the node's compute: on the gang's rails (chosen on
   * this node alone when the gang has none yet, as after a restart with no member bound). A {@code
   * required} member is refused off them; a {@code preferred} one gets the plain plan, and {@link
   * #offRails} says so.
   */
  static final class Planner implements Assumptions.Planner {
    private final PodRequest pod;
    private SortedSet<Integer> rails;
    private boolean offRails;

    private Planner(PodRequest pod, SortedSet<Integer> rails) {
      this.pod = pod;
      this.rails = rails;
    }

    @Override
    public AllocationResult plan(
        Allocator allocator, AllocationRequest request, Availability free) {
      if (rails.isEmpty()) {
        rails = GangRails.choose(request, List.of(new Candidate(allocator, free)));
      }
      AllocationResult on = GangRails.plan(allocator, request, free, rails);
      if (on instanceof Infeasible no && !rails.isEmpty()) {
        if (pod.railsRequired()) {
          return new Infeasible(
              no.shortfall(), refusal(pod, rails, no), no.bestAvailable(), no.resolvable());
        }
        offRails = true;
        return allocator.allocate(request, free);
      }
      return on;
    }

    /** Whether a {@code preferred} member was planned off its gang's rails. */
    boolean offRails() {
      return offRails;
    }
  }
}
