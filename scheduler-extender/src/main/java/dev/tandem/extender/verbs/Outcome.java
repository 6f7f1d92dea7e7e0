package dev.tandem.extender.verbs;

import dev.tandem.topology.allocation.Infeasible;

/** Why a node passed or failed the filter: the label of the filter-outcome metric. */
public enum Outcome {
  PASSED("passed"),
  /** A node without a NodeTopology, passed to a pod that does not need one. */
  PASSED_WITHOUT_TOPOLOGY("passed_without_topology"),
  NOT_INTERESTED("not_interested"),
  /** A node without a NodeTopology, refused to a pod that needs one. */
  NO_TOPOLOGY("no_topology"),
  INVALID_POLICY("invalid_policy"),
  NO_GPUS("no_gpus"),
  NO_HCAS("no_hcas"),
  NOT_ENOUGH_GPUS("not_enough_gpus"),
  NOT_ENOUGH_HCAS("not_enough_hcas"),
  ALIGNMENT("alignment"),
  /** A gang member that must keep to its gang's rails, and the node has no aligned set on them. */
  GANG_RAILS("gang_rails");

  public static final String NO_TOPOLOGY_REASON =
      "no NodeTopology for this node, so required GPU+HCA alignment cannot be checked"
          + " (is the tandem agent running on it?)";

  private final String label;

  Outcome(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  static Outcome of(Infeasible.Shortfall s) {
    return switch (s) {
      case NO_GPUS -> NO_GPUS;
      case NO_HCAS -> NO_HCAS;
      case NOT_ENOUGH_GPUS -> NOT_ENOUGH_GPUS;
      case NOT_ENOUGH_HCAS -> NOT_ENOUGH_HCAS;
      case ALIGNMENT -> ALIGNMENT;
    };
  }
}
