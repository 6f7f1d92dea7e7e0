package dev.tandem.topology.allocation;

import dev.tandem.topology.model.Locality;

/**
 * Why a request cannot be met on a node.
 *
 * @param shortfall the kind of failure
 * @param reason a sentence a person can act on
 * @param bestAvailable for {@link Shortfall#ALIGNMENT}: the best locality the node offers now; null
 *     otherwise
 * @param resolvable whether freeing devices on the node (preemption) could make the request fit:
 *     false when the node's healthy devices, all free, still could not
 */
public record Infeasible(
    Shortfall shortfall, String reason, Locality bestAvailable, boolean resolvable)
    implements AllocationResult {

  /** What is missing. */
  public enum Shortfall {
    /** The node has no GPU at all. */
    NO_GPUS,
    /** The node has no HCA at all. */
    NO_HCAS,
    /** Fewer free GPUs than requested. */
    NOT_ENOUGH_GPUS,
    /** Fewer free HCA units than requested. */
    NOT_ENOUGH_HCAS,
    /** Enough devices, but not close enough for the pod's alignment policy. */
    ALIGNMENT
  }
}
