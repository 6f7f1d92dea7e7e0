package dev.tandem.simulator.workload;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentPolicy;

/**
 * One pod of a workload.
 *
 * @param id position in the trace, from 0
 * @param arrival when it is created, in seconds from the start
 * @param gpus GPUs requested
 * @param hcas HCA units requested
 * @param policy its alignment policy
 * @param duration how long it runs once placed, in seconds
 * @param gang its gang, or null for a pod planned alone
 */
public record PodSpec(
    int id,
    double arrival,
    int gpus,
    int hcas,
    AlignmentPolicy policy,
    double duration,
    GangMember gang) {

  /** A pod in no gang. */
  public PodSpec(
      int id, double arrival, int gpus, int hcas, AlignmentPolicy policy, double duration) {
    this(id, arrival, gpus, hcas, policy, duration, null);
  }

  /** The same pod at another position in the trace. */
  public PodSpec withId(int newId) {
    return new PodSpec(newId, arrival, gpus, hcas, policy, duration, gang);
  }

  /** The allocator's request for this pod. */
  public AllocationRequest request() {
    return new AllocationRequest(gpus, hcas, policy);
  }

  /** The pod's shape, e.g. {@code 2+2}. */
  public String shape() {
    return gpus + "+" + hcas;
  }
}
