package dev.tandem.deviceplugin.preferred;

/**
 * What guided a container's preferred allocation: its pod's plan, the GPUs it holds (the HCAs
 * nearest them), or neither (the allocator's best, else the kubelet's order).
 */
public enum PreferredOutcome {
  FOLLOWED_PLAN("followed_plan"),
  FOLLOWED_GPUS("followed_gpus"),
  FALLBACK("fallback");

  private final String label;

  PreferredOutcome(String label) {
    this.label = label;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /** Told the outcome of each container's GetPreferredAllocation, by the resource it was for. */
  @FunctionalInterface
  public interface Listener {

    /** Records nothing. */
    Listener NONE = (side, outcome) -> {};

    void decided(Side side, PreferredOutcome outcome);
  }
}
