package dev.tandem.extender.state;

import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Infeasible;

/**
 * One node's place in the cluster state: its current entry, and the allocator's latest answer for
 * it. A cell lives as long as its node; a node that goes and comes back gets a new cell, so a
 * cell's entry is null only once its node is gone.
 */
public final class NodeCell {

  /**
   * The allocator's answer to a request at an entry, valid while that entry is the node's current
   * one. Its refusal and score are read once, when it is remembered: the filter's loop then reads
   * no per-node result object (a feasible answer is a fresh allocation per node, cold in cache).
   *
   * @param refusal the answer when infeasible; null when the pod fits
   * @param score the allocation's score when the pod fits; 0 otherwise
   */
  public record Answer(
      NodeEntry entry,
      AllocationRequest request,
      AllocationResult result,
      Infeasible refusal,
      int score) {

    Answer(NodeEntry entry, AllocationRequest request, AllocationResult result) {
      this(
          entry,
          request,
          result,
          result instanceof Infeasible no ? no : null,
          result instanceof Allocation a ? a.score() : 0);
    }
  }

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
   * The remembered answer to this request at this entry, or null. A burst of one pod shape asks
   * with the same request instance, which compares without {@code equals}.
   */
  public Answer remembered(NodeEntry at, AllocationRequest request) {
    Answer m = memo;
    return m != null && m.entry == at && (m.request == request || m.request.equals(request))
        ? m
        : null;
  }

  /** Remembers the answer to the request at this entry, and returns it. */
  public Answer remember(NodeEntry at, AllocationRequest request, AllocationResult result) {
    Answer m = new Answer(at, request, result);
    memo = m;
    return m;
  }
}
