package dev.tandem.kubelet.podresources;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The devices one container holds, as the kubelet's PodResources {@code List} reports them.
 *
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param container the container's name
 * @param devices device ids by resource name (e.g. {@code rdma/hca -> [mlx5_0]}), ids sorted and
 *     unique; a resource the kubelet has not allocated yet is absent
 * @param claims the devices the container holds through DRA ResourceClaims, in the kubelet's order
 *     (empty on kubelets without {@code KubeletPodResourcesDynamicResources}, on by default from
 *     1.34)
 */
public record PodDevices(
    String namespace,
    String pod,
    String container,
    Map<String, List<String>> devices,
    List<ClaimDevice> claims) {

  public PodDevices {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(pod, "pod");
    Objects.requireNonNull(container, "container");
    devices = Map.copyOf(devices);
    claims = claims == null ? List.of() : List.copyOf(claims);
  }

  /** A container holding devices of device plugins only. */
  public PodDevices(
      String namespace, String pod, String container, Map<String, List<String>> devices) {
    this(namespace, pod, container, devices, List.of());
  }

  /** The ids of one resource, empty when none is allocated (yet). */
  public List<String> ids(String resource) {
    return devices.getOrDefault(resource, List.of());
  }
}
