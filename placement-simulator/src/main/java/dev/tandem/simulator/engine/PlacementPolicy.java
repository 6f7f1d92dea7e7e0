package dev.tandem.simulator.engine;

import dev.tandem.simulator.workload.PodSpec;
import java.util.Random;

/**
 * How a cluster places a pod: which node the scheduler picks and which devices the node then gives.
 * One implementation per system compared; each documents where its rule comes from.
 */
public interface PlacementPolicy {

  /** Short name used in flags and reports, e.g. {@code joint}. */
  String name();

  /** One sentence saying what is modelled. */
  String description();

  /**
   * Decides for one pod against the current state. Must not change the state; the simulation takes
   * the devices of a {@link Decision.Placed}.
   *
   * @param random the run's seeded source, for choices the real system leaves to chance
   */
  Decision place(PodSpec pod, ClusterState state, Random random);
}
