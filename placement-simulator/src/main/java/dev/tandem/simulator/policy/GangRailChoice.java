package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.workload.PodSpec;
import java.util.Optional;
import java.util.SortedSet;

/**
 * How the first member of a gang to be placed (no member of its gang running) picks the gang's
 * rails. Empty: no choice of its own, the allocator's plan on the best node sets them.
 */
@FunctionalInterface
interface GangRailChoice {

  /** No choice: the first member's rails are those of the plan the allocator makes for it. */
  GangRailChoice ALLOCATORS_PLAN = (pod, state) -> Optional.empty();

  Optional<SortedSet<Integer>> choose(PodSpec pod, ClusterState state);
}
