package dev.tandem.extender.state;

import dev.tandem.topology.allocation.AllocationResult;

/**
 * The outcome of an allocate-and-assume step.
 *
 * @param result the allocator's answer
 * @param plan the plan now held, when the answer was feasible; else null
 */
public record Assumption(AllocationResult result, AssumedPlan plan) {}
