package dev.tandem.simulator.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.claims.ClaimRequest;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The claim kube-scheduler writes for extended resources served through DRA. */
class ExtendedResourceClaimTest {

  @Test
  @DisplayName("4+4: the GPU request, then the HCA request, each exactly its count, no constraints")
  void oneRequestPerNameWithoutConstraints() {
    DeviceClaimSpec claim =
        ExtendedResourceClaim.of(new AllocationRequest(4, 4, AlignmentPolicy.DEFAULT));
    assertEquals(
        List.of(
            ClaimRequest.exactly("container-0-request-0", "tandem-gpu", 4),
            ClaimRequest.exactly("container-0-request-1", "tandem-hca", 4)),
        claim.requests());
    assertEquals(List.of(), claim.constraints());
  }

  @Test
  @DisplayName("a name the pod asks none of gets no request")
  void noRequestForANameNotAsked() {
    DeviceClaimSpec claim =
        ExtendedResourceClaim.of(new AllocationRequest(2, 0, AlignmentPolicy.DEFAULT));
    assertEquals(
        List.of(ClaimRequest.exactly("container-0-request-0", "tandem-gpu", 2)), claim.requests());
  }
}
