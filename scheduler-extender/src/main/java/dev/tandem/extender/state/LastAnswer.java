package dev.tandem.extender.state;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;

/**
 * The most recent allocator answer for one node version: a burst of identical pods reads it
 * without building a cache key per node. Racy by design (last writer wins); every value it holds
 * is correct for its node version.
 */
public final class LastAnswer {

  private record Answer(AllocationRequest request, AllocationResult result) {}

  private volatile Answer last;

  /** The remembered answer for this request, or null (same instance compares without equals). */
  public AllocationResult get(AllocationRequest request) {
    Answer a = last;
    return a != null && (a.request == request || a.request.equals(request)) ? a.result : null;
  }

  public void set(AllocationRequest request, AllocationResult result) {
    last = new Answer(request, result);
  }
}
