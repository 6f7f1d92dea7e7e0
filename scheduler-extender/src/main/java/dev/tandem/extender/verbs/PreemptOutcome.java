package dev.tandem.extender.verbs;

/** What became of one node kube-scheduler proposed for a preemption: the metric's label. */
public enum PreemptOutcome {
  /**
   * Kept: every proposed victim is needed for an aligned set (or for resources Tandem does not
   * see).
   */
  KEPT("kept"),
  /** Kept with fewer victims than proposed. */
  TRIMMED("trimmed"),
  /** Kept as proposed: the pod fits the node's free devices already; the eviction is for others. */
  DEVICES_FREE("devices_free"),
  /** Kept as proposed: a node without a NodeTopology, for a pod that does not need one. */
  WITHOUT_TOPOLOGY("without_topology"),
  /** Kept as proposed: the pod requests neither resource. */
  NOT_INTERESTED("not_interested"),
  /** Dropped: evicting every proposed victim still frees no set that meets the policy. */
  NOT_ALIGNED("not_aligned"),
  /** Dropped: the node's healthy devices, all free, could never meet the policy. */
  UNRESOLVABLE("unresolvable"),
  /** Dropped: a node without a NodeTopology, for a pod with required GPU+HCA alignment. */
  NO_TOPOLOGY("no_topology"),
  /** Dropped: the pod's policy annotations are invalid. */
  INVALID_POLICY("invalid_policy");

  private final String label;

  PreemptOutcome(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Whether the node stays a candidate. */
  public boolean kept() {
    return ordinal() <= NOT_INTERESTED.ordinal();
  }
}
