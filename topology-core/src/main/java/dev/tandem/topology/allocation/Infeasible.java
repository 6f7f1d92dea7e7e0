package dev.tandem.topology.allocation;

import dev.tandem.topology.model.Locality;

/**
 * Why a request cannot be met on a node.
 *
 * @param shortfall the kind of failure
 * @param reason a sentence a person can act on
 * @param bestAvailable for {@link Shortfall#ALIGNMENT}: the best locality the node offers now;
 *     null otherwise
 */
public record Infeasible(Shortfall shortfall, String reason, Locality bestAvailable)
    implements AllocationResult {

  /** What is missing. */
  public enum Shortfall {
    /** The node has no GPU at all: no preemption can help. */
    NO_GPUS(false),
    /** The node has no HCA at all: no preemption can help. */
    NO_HCAS(false),
    /** Fewer free GPUs than requested. */
    NOT_ENOUGH_GPUS(true),
    /** Fewer free HCA units than requested. */
    NOT_ENOUGH_HCAS(true),
    /** Enough devices, but not close enough for the pod's alignment policy. */
    ALIGNMENT(true);

    private final boolean resolvable;

    Shortfall(boolean resolvable) {
      this.resolvable = resolvable;
    }

    /** Whether freeing devices on the node (preemption) could make the request fit. */
    public boolean resolvable() {
      return resolvable;
    }
  }
}
