package dev.tandem.kit.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName("the Node's labels, which select its entry of --rail-map")
class NodeLabelsMockTest {

  KubernetesClient client;

  @Test
  @DisplayName("a Node's labels; a Node without labels has none; a missing Node names node and fix")
  void labels() {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("gpu-1")
                .addToLabels("tandem.dev/model", "m1")
                .endMetadata()
                .build())
        .create();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("gpu-2").endMetadata().build())
        .create();

    assertEquals(Map.of("tandem.dev/model", "m1"), NodeLabels.read(client, "gpu-1"));
    assertEquals(Map.of(), NodeLabels.read(client, "gpu-2"));
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> NodeLabels.read(client, "ghost"));
    assertTrue(
        e.getMessage().contains("node ghost") && e.getMessage().contains("spec.nodeName"),
        e.getMessage());
  }
}
