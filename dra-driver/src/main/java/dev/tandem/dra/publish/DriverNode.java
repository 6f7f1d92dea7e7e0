package dev.tandem.dra.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;

/** The Node object of the node the driver runs on, read from the API server. Blocking. */
final class DriverNode {

  private DriverNode() {}

  /**
   * @param consequence what cannot be done without it, for the error ("so its ResourceSlices cannot
   *     be owned by it")
   * @throws IllegalStateException naming the node and the fix when the API server has no such Node
   */
  static Node read(KubernetesClient client, String nodeName, String consequence) {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new IllegalStateException(
          "node "
              + nodeName
              + " is not in the API server, "
              + consequence
              + "; check that the driver's node name (the pod's spec.nodeName) is the Node's name");
    }
    return node;
  }
}
