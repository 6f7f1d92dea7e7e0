package dev.tandem.topology.policy;

/** Whether a pod's alignment filters nodes or only scores them. */
public enum AlignmentMode {
  /** Nodes that cannot meet the alignment are filtered out. */
  REQUIRED("required"),
  /** Every node with enough devices passes; alignment only raises the score. */
  PREFERRED("preferred");

  private final String value;

  AlignmentMode(String value) {
    this.value = value;
  }

  public String value() {
    return value;
  }

  public static AlignmentMode parse(String text) {
    for (AlignmentMode m : values()) {
      if (m.value.equals(text)) {
        return m;
      }
    }
    throw new InvalidPolicyException(AlignmentPolicy.MODE_ANNOTATION, text, "required, preferred");
  }
}
