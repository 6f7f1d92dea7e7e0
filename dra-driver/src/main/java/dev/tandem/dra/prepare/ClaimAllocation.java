package dev.tandem.dra.prepare;

import java.util.List;

/**
 * A ResourceClaim as the API server holds it, reduced to what Prepare reads.
 *
 * @param uid the claim's UID (a claim deleted and created again has another)
 * @param allocated whether {@code status.allocation} is set
 * @param devices the allocation's devices, of every driver
 */
public record ClaimAllocation(String uid, boolean allocated, List<AllocatedDevice> devices) {

  /**
   * The most results an allocation has: the API server's {@code AllocationResultsMaxSize}
   * (resource.k8s.io/v1). A claim with more was not written by kube-scheduler through the API
   * server; refusing it also bounds Prepare's answer.
   */
  public static final int MAX_RESULTS = 32;

  public ClaimAllocation {
    devices = List.copyOf(devices);
  }
}
