package dev.tandem.simulator.engine;

import java.util.List;

/**
 * What one policy achieved on a trace.
 *
 * @param policy the policy's name
 * @param description what the policy models
 * @param pods pods in the trace that arrived before the run stopped
 * @param placed pods that started
 * @param aligned pods that started with their GPUs and HCAs within their policy's locality
 * @param alignedWithoutWait aligned pods that started at their arrival
 * @param turnedAway pods refused at admission or that waited longer than the maximum wait
 * @param waitingAtEnd pods still pending when the trace ended
 * @param meanWaitSeconds mean wait of the pods that started
 * @param idleGpuShare time-averaged share of the cluster's GPUs not held by a pod (0..1)
 * @param idleHcaShare the same for HCA units
 * @param meanAlignedSetsFree time-averaged number of free switch-aligned 1 GPU + 1 HCA pairs in the
 *     cluster (the sum over switch groups of min(free GPUs, free HCAs)): fragmentation
 * @param samples the cluster over time
 * @param partial whether the run stopped before the end of the trace
 * @param wallSeconds how long the run took
 * @param gangs how the gangs' members kept one rail set, or null when the trace has no gang
 */
public record PolicyResult(
    String policy,
    String description,
    int pods,
    int placed,
    int aligned,
    int alignedWithoutWait,
    int turnedAway,
    int waitingAtEnd,
    double meanWaitSeconds,
    double idleGpuShare,
    double idleHcaShare,
    double meanAlignedSetsFree,
    List<Sample> samples,
    boolean partial,
    double wallSeconds,
    GangFigure gangs) {

  /** Aligned pods as a share of the pods in the trace, in percent. */
  public double alignedPercent() {
    return pods == 0 ? 0 : 100.0 * aligned / pods;
  }

  /**
   * The cluster at one moment.
   *
   * @param time seconds from the start
   * @param alignedSetsFree free switch-aligned 1+1 pairs
   * @param idleGpus GPUs not held by a pod
   * @param waiting pods pending
   */
  public record Sample(double time, int alignedSetsFree, int idleGpus, int waiting) {}
}
