package dev.tandem.api.claims;

import java.util.List;

/**
 * The device part of a ResourceClaim ({@code spec.devices}): requests in the order the allocator
 * takes them, and the constraints between them. Pure; {@link ClaimTemplates} writes it as fabric8's
 * {@code resource.k8s.io/v1} model.
 */
public record DeviceClaimSpec(List<ClaimRequest> requests, List<MatchConstraint> constraints) {

  public DeviceClaimSpec {
    requests = List.copyOf(requests);
    constraints = List.copyOf(constraints);
  }

  /** The most devices any choice of alternatives allocates. */
  public int maxDevices() {
    return requests.stream()
        .mapToInt(r -> r.choices().stream().mapToInt(DeviceChoice::count).max().orElse(0))
        .sum();
  }
}
