package dev.tandem.agent.audit;

import dev.tandem.api.pod.PodContainersMapper;
import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.PodContainers;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;

/**
 * What the audit needs from a Pod object: identity, annotations (the alignment policy) and the
 * extended-resource counts of the containers PodResources lists (regular and sidecar containers),
 * read as every component reads them (tandem-api's {@code PodContainersMapper}: the request, the
 * limit standing in, rounded up to whole devices).
 *
 * @param uid the pod's uid
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param annotations the pod's annotations
 * @param limits container name to extended resource name to its count of devices
 */
public record PodFacts(
    String uid,
    String namespace,
    String name,
    Map<String, String> annotations,
    Map<String, Map<String, Long>> limits) {

  public PodFacts {
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    limits = Map.copyOf(limits);
  }

  /** The key PodResources and the API share: {@code namespace/name}. */
  public String key() {
    return key(namespace, name);
  }

  public static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  /** The count of a resource in a container, 0 when it names none. */
  public long limit(String container, String resource) {
    return limits.getOrDefault(container, Map.of()).getOrDefault(resource, 0L);
  }

  /**
   * The facts of a Pod object; its counts read by tandem-api's one reading of containers.
   *
   * @throws IllegalArgumentException naming the container, the resource and the value, when a
   *     quantity is not a count of devices
   */
  public static PodFacts of(Pod pod) {
    Map<String, Map<String, Long>> limits = new HashMap<>();
    PodContainers containers = PodContainersMapper.of(pod);
    // PodResources lists app containers and sidecars, never an ordinary init container
    containers.init().stream().filter(ContainerDemand::sidecar).forEach(c -> count(c, limits));
    containers.app().forEach(c -> count(c, limits));
    return new PodFacts(
        pod.getMetadata().getUid(),
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getAnnotations(),
        limits);
  }

  private static void count(ContainerDemand c, Map<String, Map<String, Long>> out) {
    Map<String, Long> counts = new HashMap<>();
    c.limits().keySet().forEach(r -> counts.put(r, c.units(r)));
    c.requests().keySet().forEach(r -> counts.put(r, c.units(r)));
    out.put(c.name(), Map.copyOf(counts));
  }
}
