package dev.tandem.extender.state;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.allocation.Verdict;

/**
 * One node's place in the cluster state: its current entry, and the allocator's latest answer for
 * it. A cell lives as long as its node; a node that goes and comes back gets a new cell, so a
 * cell's entry is null only once its node is gone.
 */
public final class NodeCell {

  /**
   * The allocator's answer to a request at an entry, valid while that entry is the node's current
   * one: its refusal, or the score of the allocation it would make. That is all the filter and
   * prioritize read.
   *
   * @param refusal the answer when infeasible; null when the pod fits
   * @param score the allocation's score when the pod fits; 0 otherwise
   */
  public record Answer(NodeEntry entry, AllocationRequest request, Infeasible refusal, int score) {}

  private final String name;
  private volatile NodeEntry entry;

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

  void entry(NodeEntry current) {
    entry = current;
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
    Answer m = new Answer(at, request, verdict.refusal(), verdict.score());
    memo = m;
    return m;
  }
}
