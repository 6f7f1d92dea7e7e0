package dev.tandem.topology.allocation;

/** The allocator's answer: an {@link Allocation}, or {@link Infeasible} with a reason. */
public sealed interface AllocationResult permits Allocation, Infeasible {

  default boolean feasible() {
    return this instanceof Allocation;
  }
}
