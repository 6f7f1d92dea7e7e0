package dev.tandem.api.crd;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Node objects in a (mock) API server. */
public final class TestNodes {

  private TestNodes() {}

  public static Node create(KubernetesClient client, String name) {
    return client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }
}
