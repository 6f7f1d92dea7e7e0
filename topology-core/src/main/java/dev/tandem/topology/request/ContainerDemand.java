package dev.tandem.topology.request;

import java.util.Map;

/**
 * The extended-resource quantities of one container, as the pod spec states them.
 *
 * @param name container name
 * @param requests {@code resources.requests}, resource name to whole units
 * @param limits {@code resources.limits}, resource name to whole units
 * @param sidecar true for an init container with {@code restartPolicy: Always}
 */
public record ContainerDemand(
    String name, Map<String, Long> requests, Map<String, Long> limits, boolean sidecar) {

  public ContainerDemand {
    requests = requests == null ? Map.of() : Map.copyOf(requests);
    limits = limits == null ? Map.of() : Map.copyOf(limits);
  }

  /**
   * The request for a resource; the limit stands in when only a limit is set (extended resources).
   */
  public long units(String resource) {
    Long r = requests.get(resource);
    if (r != null) {
      return r;
    }
    Long l = limits.get(resource);
    return l == null ? 0 : l;
  }

  /** Whether the resource is named at all, even with quantity 0 (kube-scheduler's IsInterested). */
  public boolean names(String resource) {
    return requests.containsKey(resource) || limits.containsKey(resource);
  }
}
