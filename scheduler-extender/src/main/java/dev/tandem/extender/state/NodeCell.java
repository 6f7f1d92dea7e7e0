package dev.tandem.extender.state;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;

/**
 * One node's place in the cluster state: its current entry, and the allocator's latest answer for
 * it. A cell lives as long as its node; a node that goes and comes back gets a new cell, so a
 * cell's entry is null only once its node is gone.
 */
public final class NodeCell {

  /** An answer, valid while its entry is the node's current one. */
  private record Memo(NodeEntry entry, AllocationRequest request, AllocationResult result) {}

  private final String name;
  private volatile NodeEntry entry;
  /** Racy by design (last writer wins): every memo is correct for the entry it names. */
  private volatile Memo memo;

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
  public AllocationResult remembered(NodeEntry at, AllocationRequest request) {
    Memo m = memo;
    return m != null && m.entry == at && (m.request == request || m.request.equals(request))
        ? m.result : null;
  }

  public void remember(NodeEntry at, AllocationRequest request, AllocationResult result) {
    memo = new Memo(at, request, result);
  }
}
