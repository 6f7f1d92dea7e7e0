package dev.tandem.deviceplugin.joint;

import dev.tandem.deviceplugin.preferred.PlannedPod;

/**
 * The container a first GetPreferredAllocation is taken to be for.
 *
 * @param pod the pending pod with its plan, or null when none matched (or no API server)
 * @param container the container name ("" when matched by the plan's sizes alone)
 * @param gpus the container's GPU count; -1 when unknown
 * @param hcas the container's HCA count; -1 when unknown
 * @param why one sentence for the log
 */
record PodMatch(PlannedPod pod, String container, int gpus, int hcas, String why) {

  /** Only this call's size is known. */
  static PodMatch unknown(Side side, int size, String why) {
    return new PodMatch(null, "", side == Side.GPU ? size : -1, side == Side.HCA ? size : -1, why);
  }

  String key() {
    return pod == null ? null : pod.key() + "/" + container;
  }
}
