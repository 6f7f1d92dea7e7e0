package dev.tandem.api.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true, https = false)
class NodeTopologyCrdMockTest {

  static KubernetesClient client;

  @BeforeEach
  void installCrd() {
    CrdFile.install(client);
  }

  @Test
  @DisplayName(
      "a NodeTopology created through the shipped CRD reads back as the same machine, cluster-scoped")
  void createAndRead() {
    Machine machine = TestMachines.twoSwitchesAndLoneHca("gpu-1");
    client.resources(NodeTopology.class).resource(NodeTopologyMapper.toResource(machine)).create();

    NodeTopology read = client.resources(NodeTopology.class).withName("gpu-1").get();
    assertNotNull(read);
    assertNull(read.getMetadata().getNamespace());
    assertEquals(machine, NodeTopologyMapper.toMachine(read));
    List<NodeTopology> all = client.resources(NodeTopology.class).list().getItems();
    assertEquals(List.of("gpu-1"), all.stream().map(t -> t.getMetadata().getName()).toList());
  }
}
