package dev.tandem.extender.state;

import com.github.benmanes.caffeine.cache.Interner;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.GroupCounts;
import dev.tandem.topology.allocation.Verdict;

/**
 * The free devices of every node in one state, as the allocator's verdict reads them: nodes of
 * whole GPUs and HCAs whose {@link GroupCounts} are equal (nodes of one model idle, or with as many
 * devices taken under each switch) share one instance, made when a node's entry changes, and the
 * verdicts for the latest request shapes are kept on it. A pod shape never seen before then costs
 * one {@link Allocator#verdict(AllocationRequest, GroupCounts)} per distinct state and a pointer
 * per node. Nodes with shared slots or time-sliced replicas have none: the allocator decides for
 * them.
 *
 * <p>Interned process-wide and weakly: a state no node is in any more is collected with its
 * verdicts. Every verdict kept here was decided from this state's counts, so a node that changes
 * moves to another state and never reads a verdict of the one it left.
 */
public final class FreeState {

  /** Verdicts kept per state: the shapes of the few pods being scheduled at once. */
  private static final int KEPT = 4;

  private static final Interner<FreeState> STATES = Interner.newWeakInterner();

  private final GroupCounts counts;

  /**
   * The latest verdicts, newest first. Racy by design: each slot holds a whole verdict of this
   * state, whichever thread wrote it last.
   */
  private final Kept[] kept = new Kept[KEPT];

  /** A verdict for one request instance. */
  private record Kept(AllocationRequest request, Verdict verdict) {}

  private FreeState(GroupCounts counts) {
    this.counts = counts;
  }

  /** The shared state of these free devices; null when some device has several units. */
  static FreeState of(Availability free) {
    GroupCounts counts = free.counts();
    return counts == GroupCounts.NONE ? null : STATES.intern(new FreeState(counts));
  }

  /**
   * The verdict for a request in this state, decided on the first ask of this request instance and
   * kept. Requests are told apart by identity: the caller passes one instance per pod shape (the
   * extender's evaluator keeps shapes canonical), so a shape new to it is decided anew.
   */
  public Verdict verdict(AllocationRequest request) {
    for (Kept k : kept) {
      if (k != null && k.request == request) {
        return k.verdict;
      }
    }
    Verdict verdict = Allocator.verdict(request, counts);
    System.arraycopy(kept, 0, kept, 1, KEPT - 1);
    kept[0] = new Kept(request, verdict);
    return verdict;
  }

  /** The counts this state stands for. */
  public GroupCounts counts() {
    return counts;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FreeState s && s.counts.equals(counts);
  }

  @Override
  public int hashCode() {
    return counts.hashCode();
  }
}
