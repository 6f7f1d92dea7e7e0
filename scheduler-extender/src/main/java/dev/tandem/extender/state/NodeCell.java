package dev.tandem.extender.state;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Verdict;

/**
 * One node's place in the cluster state: its current entry and, on whole GPUs and HCAs, the shared
 * {@link FreeState} of its free devices, whose verdicts serve every node in that state; with shared
 * slots or replicas, the allocator's latest answer for it. A cell lives as long as its node; a node
 * that goes and comes back gets a new cell, so a cell's entry is null only once its node is gone.
 */
public final class NodeCell {

  /**
   * The allocator's answer to a request at an entry, valid while that entry is the node's current
   * one: its refusal, or the score of the allocation it would make. That is all the filter and
   * prioritize read.
   *
   * @param verdict the allocator's verdict at that entry
   */
  public record Answer(NodeEntry entry, AllocationRequest request, Verdict verdict) {}

  private final String name;
  private volatile NodeEntry entry;

  /**
   * The shared state of the entry's free devices; null when the node is gone or its devices have
   * several units. Set before the entry: a reader that finds none reads the entry.
   */
  private volatile FreeState state;

  /** Racy by design (last writer wins): every answer is correct for the entry it names. */
  private volatile Answer memo;

  NodeCell(String name) {
    this.name = name;
  }

  public String name() {
    return name;
  }

  /** The node's current entry; null once the node is gone. */
  public NodeEntry entry() {
    return entry;
  }

  /** The node's entry changed: it moves to the shared state of its free devices. */
  void entry(NodeEntry current) {
    if (current == entry) {
      return;
    }
    state = current == null ? null : FreeState.of(current.free());
    entry = current;
  }

  /**
   * The shared state of the node's free devices, whose verdicts are this node's; null when the node
   * is gone or the allocator must decide for it at its {@link #entry()}.
   */
  public FreeState state() {
    return state;
  }

  /**
   * The remembered answer to this request instance at this entry, or null. Requests of one pod
   * shape are one instance (the evaluator keeps shapes canonical), so a burst of that shape finds
   * its answers here, and a new shape misses at once, without comparing requests node after node.
   */
  public Answer remembered(NodeEntry at, AllocationRequest request) {
    Answer m = memo;
    return m != null && m.entry == at && m.request == request ? m : null;
  }

  /** Remembers the answer to the request at this entry, and returns it. */
  public Answer remember(NodeEntry at, AllocationRequest request, Verdict verdict) {
    Answer m = new Answer(at, request, verdict);
    memo = m;
    return m;
  }
}
