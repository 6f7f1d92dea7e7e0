package dev.tandem.dra.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName(
    "other publishers of a node's GPUs: nvidia.com/gpu in the Node's capacity, NVIDIA's DRA slices")
class GpuPublishersMockTest {

  static KubernetesClient client;
  static KubernetesMockServer server;

  @BeforeEach
  void clean() {
    client.dynamicResourceAllocation().v1().resourcesSlices().delete();
    client.nodes().delete();
  }

  static void node(String name, Map<String, String> capacity, Map<String, String> allocatable) {
    Node n =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewStatus()
            .withCapacity(quantities(capacity))
            .withAllocatable(quantities(allocatable))
            .endStatus()
            .build();
    Node created = client.nodes().resource(n).create();
    created.setStatus(n.getStatus());
    client.nodes().resource(created).updateStatus();
  }

  static Map<String, Quantity> quantities(Map<String, String> m) {
    return m.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue())));
  }

  static void slice(String name, String node, String driver) {
    client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .resource(of(name, node, driver))
        .create();
  }

  static ResourceSlice of(String name, String node, String driver) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withDriver(driver)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(1L)
        .endPool()
        .endSpec()
        .build();
  }

  static List<String> others() {
    return new GpuPublishers(client).others("n1");
  }

  @Test
  @DisplayName("none: GPUs at zero, no NVIDIA slice for this node, Tandem's own slices")
  void none() {
    node("n1", Map.of("cpu", "8", "nvidia.com/gpu", "0"), Map.of("nvidia.com/gpu", "0"));
    slice("n2-gpu.nvidia.com-0", "n2", "gpu.nvidia.com");
    slice("n1-tandem.dev-0", "n1", "tandem.dev");
    assertEquals(List.of(), others());
  }

  @Test
  @DisplayName("a device plugin: nvidia.com/gpu above zero in capacity or in allocatable")
  void devicePlugin() {
    node("n1", Map.of("nvidia.com/gpu", "8"), Map.of());
    List<String> found = others();
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).contains("device plugin") && found.get(0).contains("nvidia.com/gpu"));
    clean();
    node("n1", Map.of(), Map.of("nvidia.com/gpu", "4"));
    assertEquals(1, others().size());
  }

  @Test
  @DisplayName(
      "NVIDIA's GPU DRA driver: its slices for this node, asked with the API server's field"
          + " selectors spec.nodeName and spec.driver, each named")
  void nvidiaDraDriver() throws Exception {
    node("n1", Map.of(), Map.of());
    assertEquals(List.of(), others());
    String path = server.getLastRequest().getPath();
    String asked = URLDecoder.decode(path, StandardCharsets.UTF_8);
    assertTrue(asked.startsWith("/apis/resource.k8s.io/v1/resourceslices?"), asked);
    assertTrue(
        asked.contains("spec.nodeName=n1") && asked.contains("spec.driver=gpu.nvidia.com"), asked);
    // the mock does not evaluate those selectors: answer as the API server does, plus a slice of
    // another node, which the answer's own check leaves out
    server
        .expect()
        .get()
        .withPath(path)
        .andReturn(
            200,
            new ResourceSliceListBuilder()
                .withItems(
                    of("n1-gpu.nvidia.com-abcde", "n1", "gpu.nvidia.com"),
                    of("n2-gpu.nvidia.com-fghij", "n2", "gpu.nvidia.com"))
                .build())
        .once();
    List<String> found = others();
    assertEquals(1, found.size(), found.toString());
    assertTrue(found.get(0).contains("NVIDIA's GPU DRA driver"), found.get(0));
    assertTrue(found.get(0).contains("n1-gpu.nvidia.com-abcde"), found.get(0));
    assertFalse(found.get(0).contains("n2-"), found.get(0));
  }

  @Test
  @DisplayName("a node that is not in the API server: an error naming it")
  void missingNode() {
    IllegalStateException e =
        assertThrows(IllegalStateException.class, GpuPublishersMockTest::others);
    assertTrue(e.getMessage().contains("node n1"), e.getMessage());
  }
}
