package dev.tandem.agent.audit;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What the audit needs from a Pod object: identity, annotations (the alignment policy) and the
 * extended-resource limits of the containers PodResources lists (regular and sidecar containers).
 *
 * @param uid the pod's uid
 * @param namespace the pod's namespace
 * @param name the pod's name
 * @param annotations the pod's annotations
 * @param limits container name to resource name to limit (integer resources only)
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

  /** The limit of a resource in a container, 0 when it has none. */
  public long limit(String container, String resource) {
    return limits.getOrDefault(container, Map.of()).getOrDefault(resource, 0L);
  }

  public static PodFacts of(Pod pod) {
    Map<String, Map<String, Long>> limits = new HashMap<>();
    containers(pod.getSpec() == null ? null : pod.getSpec().getContainers(), false, limits);
    containers(pod.getSpec() == null ? null : pod.getSpec().getInitContainers(), true, limits);
    return new PodFacts(
        pod.getMetadata().getUid(),
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getAnnotations(),
        limits);
  }

  private static void containers(
      List<Container> containers, boolean init, Map<String, Map<String, Long>> out) {
    if (containers == null) {
      return;
    }
    for (Container c : containers) {
      if (init && !"Always".equals(c.getRestartPolicy())) {
        continue;
      }
      Map<String, Long> limits = new HashMap<>();
      if (c.getResources() != null && c.getResources().getLimits() != null) {
        c.getResources()
            .getLimits()
            .forEach((resource, q) -> count(q).ifPresent(n -> limits.put(resource, n)));
      }
      out.put(c.getName(), Map.copyOf(limits));
    }
  }

  private static OptionalLong count(Quantity q) {
    try {
      return OptionalLong.of(Quantity.getAmountInBytes(q).longValueExact());
    } catch (ArithmeticException | IllegalArgumentException e) {
      return OptionalLong.empty();
    }
  }
}
