package dev.tandem.agent.audit;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** The Pod objects bound to this node; blocking. */
@FunctionalInterface
public interface NodePods {

  List<Pod> list();

  /**
   * Pods with {@code spec.nodeName} = {@code node}, selected by the API server (field selector), so
   * each agent reads only its own node's pods.
   */
  static NodePods fieldSelector(KubernetesClient client, String node) {
    return () ->
        client.pods().inAnyNamespace().withField("spec.nodeName", node).list().getItems().stream()
            .filter(p -> p.getSpec() != null && node.equals(p.getSpec().getNodeName()))
            .toList();
  }
}
