package dev.tandem.agent.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.dra.DraAttributes;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient
class NodeSlicesMockTest {

  static KubernetesClient client;
  static KubernetesMockServer server;

  private static ResourceSlice slice(String node, String driver, String device, String busId) {
    DeviceBuilder d = new DeviceBuilder().withName(device);
    if (busId != null) {
      d.withAttributes(
          Map.of(DraAttributes.PCI_BUS_ID, new DeviceAttributeBuilder().withString(busId).build()));
    }
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(node + "-" + driver + "-" + device)
        .endMetadata()
        .withNewSpec()
        .withDriver(driver)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(1L)
        .endPool()
        .withDevices(d.build())
        .endSpec()
        .build();
  }

  @Test
  @DisplayName(
      "the node's slices are listed with the field selector spec.nodeName (a list, the agent's one"
          + " grant on resourceslices); devices with a pciBusID are keyed driver/pool/device, other"
          + " nodes' slices left out")
  void pciBusIds() throws Exception {
    server
        .expect()
        .get()
        .withPath("/apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dgpu-1")
        .andReturn(
            200,
            new ResourceSliceListBuilder()
                .withItems(
                    slice("gpu-1", "gpu.nvidia.com", "gpu-0", "0000:3b:00.0"),
                    slice("gpu-1", "cpu.example.com", "cpu-0", null),
                    slice("gpu-2", "gpu.nvidia.com", "gpu-0", "0000:5e:00.0"))
                .build())
        .once();

    Map<String, String> found = NodeSlices.fieldSelector(client, "gpu-1").pciBusIds();

    assertEquals(Map.of("gpu.nvidia.com/gpu-1/gpu-0", "0000:3b:00.0"), found);
    String asked = URLDecoder.decode(server.getLastRequest().getPath(), StandardCharsets.UTF_8);
    assertTrue(asked.contains("spec.nodeName=gpu-1"), asked);
    assertEquals("GET", server.getLastRequest().getMethod());
  }
}
