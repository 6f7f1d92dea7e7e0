package dev.tandem.extender.verbs;

import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Combinations;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fewest victims on one node whose devices, freed, let the allocator place the pod under its
 * policy. Ranked by: fewest victims, then the lowest highest priority, then the lowest sum of
 * priorities, then kube-scheduler's order. Only victims that hold devices here are searched; the
 * allocator is the judge of every set (no second copy of the placement rules).
 *
 * <p>Bounded: the exact search tries the sets of 1, 2, … victims while the sets tried stay within
 * {@link #EXACT_SETS} allocator runs (for 8 victims, every set); beyond it, a greedy search adds
 * victims lowest priority first until the pod fits, then gives back every victim it can spare, most
 * important first: at most {@code 2n + 1} allocator runs for {@code n} victims, and a set from
 * which no victim can be spared.
 */
final class VictimSearch {

  /** Allocator runs the exact search may spend on one node. */
  static final int EXACT_SETS = 256;

  /** A victim holding devices on the node, with the priority it is ranked by. */
  record Candidate(String uid, long priority) {}

  private final NodeEntry node;
  private final AllocationRequest request;
  private int runs;

  VictimSearch(NodeEntry node, AllocationRequest request) {
    this.node = node;
    this.request = request;
  }

  /** Allocator runs so far (for tests of the bound). */
  int runs() {
    return runs;
  }

  /** Whether the pod fits once these pods are gone. */
  boolean fits(Set<String> gone) {
    runs++;
    return node.allocator().allocate(request, node.freeWithout(gone)) instanceof Allocation;
  }

  /**
   * The best set among {@code victims} (most important first, as kube-scheduler lists them), which
   * must fit when all of them go; empty when the pod fits with none gone.
   */
  List<Candidate> best(List<Candidate> victims) {
    if (fits(Set.of())) {
      return List.of();
    }
    int n = victims.size();
    long sets = 0;
    for (int size = 1; size < n; size++) {
      sets += combinations(n, size);
      if (sets > EXACT_SETS) {
        return greedy(victims);
      }
      List<Candidate> found = bestOfSize(victims, size);
      if (found != null) {
        return found;
      }
    }
    return victims;
  }

  private List<Candidate> bestOfSize(List<Candidate> victims, int size) {
    int[] pick = Combinations.first(size);
    List<Candidate> best = null;
    do {
      List<Candidate> set = new ArrayList<>(size);
      for (int i : pick) {
        set.add(victims.get(i));
      }
      if ((best == null || RANK.compare(set, best) < 0) && fits(uids(set))) {
        best = set;
      }
    } while (Combinations.next(pick, victims.size()));
    return best;
  }

  /** Lowest priorities first until the pod fits; then each one spared that is not needed. */
  private List<Candidate> greedy(List<Candidate> victims) {
    List<Candidate> byPriority = new ArrayList<>(victims);
    // least important first: lowest priority, and among equals the later in kube-scheduler's order
    Collections.reverse(byPriority);
    byPriority.sort(Comparator.comparingLong(Candidate::priority));
    List<Candidate> chosen = new ArrayList<>();
    for (Candidate c : byPriority) {
      chosen.add(c);
      if (fits(uids(chosen))) {
        break;
      }
    }
    for (int i = chosen.size() - 1; i >= 0 && chosen.size() > 1; i--) {
      Candidate spared = chosen.remove(i);
      if (!fits(uids(chosen))) {
        chosen.add(i, spared);
      }
    }
    List<Candidate> inOrder = new ArrayList<>(victims);
    inOrder.retainAll(chosen);
    return inOrder;
  }

  /** Fewer victims, then lower highest priority, then lower sum; else the first found. */
  private static final Comparator<List<Candidate>> RANK =
      Comparator.<List<Candidate>>comparingInt(List::size)
          .thenComparingLong(s -> s.stream().mapToLong(Candidate::priority).max().orElse(0))
          .thenComparingLong(s -> s.stream().mapToLong(Candidate::priority).sum());

  static Set<String> uids(List<Candidate> set) {
    Set<String> out = new HashSet<>();
    set.forEach(c -> out.add(c.uid()));
    return out;
  }

  private static long combinations(int n, int k) {
    long c = 1;
    for (int i = 0; i < k; i++) {
      c = c * (n - i) / (i + 1);
    }
    return c;
  }
}
