package dev.tandem.dra.publish;

/**
 * A ResourceSlice field the driver writes that kube-apiserver clears when a feature gate is off
 * (its ResourceSlice strategy, {@code dropDisabledFields}): the write succeeds and the slice read
 * back lacks the field. The publisher compares slices without such a field when the server held
 * none of it, so a dropped field never causes a rewrite at each rediscovery (docs/dra.md,
 * "Publication").
 */
public enum DroppedField {
  /** {@code spec.devices[].taints}: the driver's health of each device. */
  DEVICE_TAINTS(
      "DRADeviceTaints",
      "the API server does not keep device taints (feature gate DRADeviceTaints off), so"
          + " unhealthy devices stay allocatable: enable DRADeviceTaints on kube-apiserver and"
          + " kube-scheduler (Kubernetes 1.34-1.35), or run Kubernetes 1.36 or later"),
  /** {@code spec.devices[].allowMultipleAllocations} and capacities' {@code requestPolicy}. */
  CONSUMABLE_CAPACITY(
      "DRAConsumableCapacity",
      "the API server does not keep shared devices (allowMultipleAllocations, feature gate"
          + " DRAConsumableCapacity off), so each shared HCA goes to one claim at a time: enable"
          + " DRAConsumableCapacity on kube-apiserver and kube-scheduler (Kubernetes 1.34-1.35),"
          + " or run Kubernetes 1.36 or later");

  private final String gate;
  private final String consequence;

  DroppedField(String gate, String consequence) {
    this.gate = gate;
    this.consequence = consequence;
  }

  /** The kube-apiserver feature gate that keeps the field. */
  public String gate() {
    return gate;
  }

  /** What the loss means and how to fix it, in words for a log line or {@code /healthz}. */
  public String consequence() {
    return consequence;
  }
}
