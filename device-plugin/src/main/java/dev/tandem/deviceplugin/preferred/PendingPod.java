package dev.tandem.deviceplugin.preferred;

/**
 * The container a GetPreferredAllocation call is taken to be for.
 *
 * @param pod the pending pod with its plan, or null when none matched (or no API server)
 * @param container the container name ("" when matched by the plan's sizes alone)
 * @param gpus the container's GPU count; -1 when unknown
 * @param hcas the container's HCA count; -1 when unknown
 * @param why one sentence for the log
 * @param held what the node's containers hold, read in the same lookup
 */
public record PendingPod(
    PlannedPod pod, String container, int gpus, int hcas, String why, Holdings held) {

  /** Only this call's size is known. */
  public static PendingPod unknown(Side side, int size, String why, Holdings held) {
    return new PendingPod(
        null, "", side == Side.GPU ? size : -1, side == Side.HCA ? size : -1, why, held);
  }

  /** {@code namespace/name/container}, or null when no pod matched. */
  public String key() {
    return pod == null ? null : pod.key() + "/" + container;
  }
}
