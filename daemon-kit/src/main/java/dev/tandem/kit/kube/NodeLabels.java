package dev.tandem.kit.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Optional;

/**
 * The labels of the Node a daemon runs on, read from the API server: what selects the node's entry
 * of the operator's rail mapping ({@code --rail-map}, docs/rails.md) in every node daemon.
 */
public final class NodeLabels {

  private NodeLabels() {}

  /**
   * The Node's labels (none: an empty map). Blocking.
   *
   * @throws IllegalStateException naming the node and the fix when the API server has no such Node
   */
  public static Map<String, String> read(KubernetesClient client, String nodeName) {
    return Optional.ofNullable(client.nodes().withName(nodeName).get())
        .map(node -> Optional.ofNullable(node.getMetadata().getLabels()).orElse(Map.of()))
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "node "
                        + nodeName
                        + " is not in the API server, so its labels (which select its entry of"
                        + " --rail-map) are unknown; check that the daemon's node name (the pod's"
                        + " spec.nodeName) is the Node's name"));
  }
}
