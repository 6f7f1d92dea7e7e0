package dev.tandem.api.claims;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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

  /**
   * The devices of each class the claim needs at least: each request at its smallest alternative,
   * counted only when all its alternatives ask one class.
   */
  public Map<String, Integer> leastPerClass() {
    Map<String, Integer> out = new LinkedHashMap<>();
    for (ClaimRequest r : requests) {
      Set<String> classes = new TreeSet<>();
      r.choices().forEach(c -> classes.add(c.deviceClass()));
      if (classes.size() == 1) {
        int least = r.choices().stream().mapToInt(DeviceChoice::count).min().orElse(0);
        out.merge(classes.iterator().next(), least, Integer::sum);
      }
    }
    return out;
  }
}
