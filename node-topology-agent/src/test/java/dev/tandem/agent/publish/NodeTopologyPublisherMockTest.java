package dev.tandem.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologySpec;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.api.crd.TestNodes;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true, https = false)
class NodeTopologyPublisherMockTest {

  static KubernetesClient client;
  static KubernetesMockServer server;

  private final NodeTopologySpec spec =
      NodeTopologyMapper.toSpec(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
  private final NodeTopologyStatus status =
      new NodeTopologyStatus(
          "2026-11-22T03:00:00Z",
          List.of(
              new AllocationEntry(
                  "uid-1", "ml", "train-0", "main", "rdma/hca", List.of("mlx5_0"), true)),
          List.of(),
          List.of());

  @BeforeEach
  void setUp() {
    CrdFile.install(client);
  }

  private static Node node(String name) {
    return TestNodes.create(client, name);
  }

  private static NodeTopology read(String name) {
    return client.resources(NodeTopology.class).withName(name).get();
  }

  @Test
  @DisplayName(
      "creates the object named after the node, owned by the Node (uid from the API), with spec and status")
  void creates() {
    Node node = node("gpu-1");
    var outcome = new NodeTopologyPublisher(client, "gpu-1").publish(spec, status);

    assertEquals(NodeTopologyPublisher.Outcome.CREATED, outcome);
    NodeTopology t = read("gpu-1");
    OwnerReference owner = t.getMetadata().getOwnerReferences().get(0);
    assertEquals(
        List.of("v1", "Node", "gpu-1", node.getMetadata().getUid()),
        List.of(owner.getApiVersion(), owner.getKind(), owner.getName(), owner.getUid()));
    assertEquals(spec, t.getSpec());
    assertEquals(status, t.getStatus());
    assertEquals(
        NodeTopologyPublisher.MANAGED_BY,
        t.getMetadata().getLabels().get(NodeTopologyPublisher.MANAGED_BY_LABEL));
  }

  @Test
  @DisplayName(
      "updates spec and status in place, keeps others' labels, and writes nothing when nothing changed")
  void updates() {
    node("gpu-1");
    NodeTopologyPublisher publisher = new NodeTopologyPublisher(client, "gpu-1");
    publisher.publish(spec, status);
    NodeTopology labelled = read("gpu-1");
    Map<String, String> labels = new HashMap<>(labelled.getMetadata().getLabels());
    labels.put("team", "ml");
    labelled.getMetadata().setLabels(labels);
    client.resource(labelled).update();

    NodeTopologySpec smaller = NodeTopologyMapper.toSpec(TestMachines.gpusOnRootPorts("gpu-1"));
    NodeTopologyStatus later =
        new NodeTopologyStatus("2026-11-22T03:01:00Z", List.of(), List.of(), List.of("n"));
    assertEquals(NodeTopologyPublisher.Outcome.UPDATED, publisher.publish(smaller, later));
    NodeTopology t = read("gpu-1");
    assertEquals(smaller, t.getSpec());
    assertEquals(later, t.getStatus());
    assertEquals("ml", t.getMetadata().getLabels().get("team"));

    String version = t.getMetadata().getResourceVersion();
    assertEquals(NodeTopologyPublisher.Outcome.UNCHANGED, publisher.publish(smaller, later));
    assertEquals(version, read("gpu-1").getMetadata().getResourceVersion());
  }

  @Test
  @DisplayName(
      "a 409 Conflict (someone wrote in between) is re-read and retried once; the update lands")
  void retriesOnConflict() throws Exception {
    node("gpu-1");
    NodeTopologyPublisher publisher = new NodeTopologyPublisher(client, "gpu-1");
    publisher.publish(spec, status);
    String path =
        "/apis/" + NodeTopology.GROUP + "/" + NodeTopology.VERSION + "/nodetopologies/gpu-1";
    server
        .expect()
        .put()
        .withPath(path)
        .andReturn(
            409,
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                + "\"status\":\"Failure\",\"reason\":\"Conflict\",\"code\":409,\"message\":\"Operation cannot be"
                + " fulfilled on nodetopologies.tandem.dev \\\"gpu-1\\\": the object has been modified\"}")
        .once();
    drainRequests();

    NodeTopologySpec smaller = NodeTopologyMapper.toSpec(TestMachines.gpusOnRootPorts("gpu-1"));
    assertEquals(NodeTopologyPublisher.Outcome.UPDATED, publisher.publish(smaller, status));
    assertEquals(smaller, read("gpu-1").getSpec());
    long puts =
        drainRequests().stream()
            .filter(r -> "PUT".equals(r.getMethod()) && r.getPath().equals(path))
            .count();
    assertEquals(2, puts, "the refused PUT, then the retried one");
  }

  private static List<RecordedRequest> drainRequests() throws InterruptedException {
    List<RecordedRequest> out = new ArrayList<>();
    for (RecordedRequest r; (r = server.takeRequest(100, TimeUnit.MILLISECONDS)) != null; ) {
      out.add(r);
    }
    return out;
  }

  @Test
  @DisplayName("never touches another node's object")
  void otherNodesUntouched() {
    node("gpu-1");
    node("gpu-2");
    new NodeTopologyPublisher(client, "gpu-2")
        .publish(NodeTopologyMapper.toSpec(TestMachines.gpusOnRootPorts("gpu-2")), status);
    NodeTopology before = read("gpu-2");

    new NodeTopologyPublisher(client, "gpu-1").publish(spec, status);

    NodeTopology after = read("gpu-2");
    assertEquals(
        before.getMetadata().getResourceVersion(), after.getMetadata().getResourceVersion());
    assertEquals(before.getSpec(), after.getSpec());
  }

  @Test
  @DisplayName("a missing Node is an error naming the node, and nothing is created")
  void missingNode() {
    NodeNotFoundException e =
        assertThrows(
            NodeNotFoundException.class,
            () -> new NodeTopologyPublisher(client, "ghost").publish(spec, status));
    assertTrue(e.getMessage().contains("ghost"), e.getMessage());
    assertEquals(null, read("ghost"));
  }
}
