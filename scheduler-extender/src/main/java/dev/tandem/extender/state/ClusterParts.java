package dev.tandem.extender.state;

import java.time.Clock;

/**
 * The parts of one cluster the extender is wired from, as its source (the API server, or the demo)
 * makes them: the state the source fills, the plans the extender assumes on it, whether this
 * replica is ready, and the ports a bind reads and writes through. The composition root hands each
 * part to whoever needs it. (The placement simulator's {@code Cluster} is a list of nodes; this is
 * not.)
 *
 * @param clock time of reports, plans and expiry
 * @param state what the cluster reports
 * @param assumptions what the extender assumed
 * @param readiness whether the sources synced and this replica leads
 * @param pods where a bind's pod is looked up when filter or prioritize did not see it
 * @param writer the API writes of a bind
 */
public record ClusterParts(
    Clock clock,
    ClusterState state,
    Assumptions assumptions,
    Readiness readiness,
    PodSource pods,
    PodWriter writer) {

  /**
   * The parts of a cluster of no nodes yet, not ready: state and assumptions share one node table.
   */
  public static ClusterParts empty(Clock clock, PodSource pods, PodWriter writer) {
    NodeTable nodes = new NodeTable();
    Assumptions assumptions = new Assumptions(nodes, clock);
    return new ClusterParts(
        clock,
        new ClusterState(nodes, assumptions, clock),
        assumptions,
        new Readiness(),
        pods,
        writer);
  }
}
