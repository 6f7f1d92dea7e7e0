package dev.tandem.deviceplugin.preferred;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What the containers on this node hold, as PodResources reported it.
 *
 * @param all every container's devices per resource; empty when PodResources is unavailable
 * @param unavailable why PodResources could not be read; null when it was
 */
public record Holdings(List<HeldDevices> all, String unavailable) {

  public Holdings {
    all = List.copyOf(all);
  }

  public static Holdings of(List<HeldDevices> all) {
    return new Holdings(all, null);
  }

  public static Holdings unavailable(String why) {
    return new Holdings(List.of(), why);
  }

  /** Names of the containers of pod {@code namespace/name} holding devices of {@code resource}. */
  Set<String> containersHolding(String podKey, String resource) {
    return all.stream()
        .filter(h -> h.resource().equals(resource) && !h.deviceIds().isEmpty())
        .filter(h -> (h.namespace() + "/" + h.pod()).equals(podKey))
        .map(HeldDevices::container)
        .collect(Collectors.toSet());
  }

  /** {@code namespace/name} of the pods holding devices of {@code resource}. */
  Set<String> podsHolding(String resource) {
    return all.stream()
        .filter(h -> h.resource().equals(resource) && !h.deviceIds().isEmpty())
        .map(h -> h.namespace() + "/" + h.pod())
        .collect(Collectors.toSet());
  }
}
