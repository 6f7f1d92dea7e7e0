package dev.tandem.dra.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName(
    "ResourceSlices of a node: created owned by the Node, no write when unchanged, next generation on change")
class SlicePublisherMockTest {

  static KubernetesClient client;

  @BeforeEach
  void nodes() {
    slices().forEach(s -> client.resource(s).delete());
    for (String n : List.of("hgx-h100-8nic", "big", "other")) {
      client
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(n).endMetadata().build())
          .createOr(existing -> existing.update());
    }
  }

  static List<ResourceSlice> slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices().list().getItems().stream()
        .sorted(Comparator.comparing(s -> s.getMetadata().getName()))
        .toList();
  }

  static NodePool hgx() {
    return PoolBuilder.build(RealMachines.hgxH100EightNic(), PoolSpec.joint());
  }

  @Test
  @DisplayName("first publication: one slice, owned by the Node, driver, node, pool generation 1")
  void creates() {
    SlicePublisher.Outcome o = new SlicePublisher(client).publish(hgx());
    assertEquals(new SlicePublisher.Outcome(1, 1, 0, 0), o);
    ResourceSlice s = slices().get(0);
    assertEquals("hgx-h100-8nic-tandem.dev-0", s.getMetadata().getName());
    assertEquals("tandem.dev", s.getSpec().getDriver());
    assertEquals("hgx-h100-8nic", s.getSpec().getNodeName());
    assertEquals("hgx-h100-8nic", s.getSpec().getPool().getName());
    assertEquals(1L, s.getSpec().getPool().getGeneration());
    assertEquals(1L, s.getSpec().getPool().getResourceSliceCount());
    assertEquals(16, s.getSpec().getDevices().size());
    var owner = s.getMetadata().getOwnerReferences().get(0);
    String uid = client.nodes().withName("hgx-h100-8nic").get().getMetadata().getUid();
    assertEquals(
        List.of("Node", "hgx-h100-8nic", uid, "v1"),
        List.of(owner.getKind(), owner.getName(), owner.getUid(), owner.getApiVersion()));
    var gpu0 = s.getSpec().getDevices().get(0);
    assertEquals("gpu-0", gpu0.getName());
    assertEquals("gpu", gpu0.getAttributes().get("tandem.dev/kind").getString());
    assertEquals(0L, gpu0.getAttributes().get("resource.kubernetes.io/numaNode").getInt());
  }

  @Test
  @DisplayName("the same pool again, and from a restarted driver: no write at all")
  void idempotent() {
    new SlicePublisher(client).publish(hgx());
    String version = slices().get(0).getMetadata().getResourceVersion();
    assertTrue(new SlicePublisher(client).publish(hgx()).unchanged());
    assertTrue(new SlicePublisher(client).publish(hgx()).unchanged());
    assertEquals(version, slices().get(0).getMetadata().getResourceVersion());
    assertEquals(1L, slices().get(0).getSpec().getPool().getGeneration());
  }

  @Test
  @DisplayName("a changed device (now unhealthy) rewrites the slice at the next generation")
  void republishesOnChange() {
    SlicePublisher publisher = new SlicePublisher(client);
    publisher.publish(hgx());
    Machine sick = TestMachines.withoutRdmaDriver(RealMachines.hgxH100EightNic(), "mlx5_3");
    SlicePublisher.Outcome o = publisher.publish(PoolBuilder.build(sick, PoolSpec.joint()));
    assertEquals(new SlicePublisher.Outcome(2, 0, 1, 0), o);
    ResourceSlice s = slices().get(0);
    assertEquals(2L, s.getSpec().getPool().getGeneration());
    var tainted =
        s.getSpec().getDevices().stream()
            .filter(d -> !d.getTaints().isEmpty())
            .map(
                d ->
                    d.getName()
                        + " "
                        + d.getTaints().get(0).getKey()
                        + "="
                        + d.getTaints().get(0).getValue())
            .toList();
    assertEquals(1, tainted.size());
    assertTrue(tainted.get(0).endsWith("tandem.dev/unhealthy=no-rdma-driver"), tainted.get(0));
    assertTrue(publisher.publish(PoolBuilder.build(sick, PoolSpec.joint())).unchanged());
  }

  @Test
  @DisplayName("a pool that needs fewer slices deletes the extra one; other nodes' slices stay")
  void shrinks() {
    SlicePublisher publisher = new SlicePublisher(client);
    publisher.publish(
        PoolBuilder.build(TestMachines.machine("other", new Switch(0, 1, 1)), PoolSpec.joint()));
    Machine big =
        TestMachines.machine(
            "big",
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(1, 0, 26),
            new Switch(1, 0, 26));
    assertEquals(
        new SlicePublisher.Outcome(1, 2, 0, 0),
        publisher.publish(PoolBuilder.build(big, PoolSpec.joint())));
    Machine small = TestMachines.machine("big", new Switch(0, 2, 2));
    assertEquals(
        new SlicePublisher.Outcome(2, 0, 1, 1),
        publisher.publish(PoolBuilder.build(small, PoolSpec.joint())));
    Map<String, Long> counts =
        slices().stream()
            .collect(
                Collectors.toMap(
                    s -> s.getMetadata().getName(), s -> s.getSpec().getPool().getGeneration()));
    assertEquals(Map.of("big-tandem.dev-0", 2L, "other-tandem.dev-0", 1L), counts);
  }

  @Test
  @DisplayName("a node that is not in the API server: a clear error, nothing written")
  void missingNode() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                new SlicePublisher(client)
                    .publish(
                        PoolBuilder.build(
                            TestMachines.machine("ghost", new Switch(0, 1, 1)), PoolSpec.joint())));
    assertTrue(e.getMessage().startsWith("node ghost is not in the API server"), e.getMessage());
    assertEquals(List.of(), slices());
  }
}
