package dev.tandem.simulator.workload;

/**
 * The largest node of a cluster: a trace asking for more is refused as an unknown shape.
 *
 * @param gpus most GPUs on one node
 * @param hcas most HCA units on one node
 */
public record NodeLimits(int gpus, int hcas) {

  /** No limit (a trace read before the cluster is known). */
  public static final NodeLimits NONE = new NodeLimits(Integer.MAX_VALUE, Integer.MAX_VALUE);
}
