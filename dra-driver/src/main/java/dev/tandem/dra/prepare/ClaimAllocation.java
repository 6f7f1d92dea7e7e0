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

  public ClaimAllocation {
    devices = List.copyOf(devices);
  }
}
