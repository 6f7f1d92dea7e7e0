package dev.tandem.extender.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.NodeClassDefault;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the informers read the HCA and GPU resources under the configured names")
class InformersTest {

  private static final ResourceNames SHARED = new ResourceNames(ResourceNames.GPU, "rdma/shared");

  @Test
  @DisplayName("a Node's labels decide its node class; a deleted Node has none")
  void nodeClasses() {
    ClusterParts cluster = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null);
    NodeClasses classes =
        new NodeClasses(
            List.of(
                new NodeClassDefault(Map.of("gpu", "gb300"), Alignment.SWITCH, null),
                new NodeClassDefault(Map.of("gpu", "gb200"), Alignment.NUMA, null)),
            AlignmentPolicy.DEFAULT);
    ResourceEventHandler<Node> nodes =
        Informers.nodes(
            cluster.state(), classes, new ExtenderMetrics(cluster), ResourceNames.DEFAULT);
    Node gb200 =
        new NodeBuilder()
            .withNewMetadata()
            .withName("tray-7")
            .withLabels(Map.of("gpu", "gb200", "zone", "a"))
            .endMetadata()
            .build();
    nodes.onAdd(gb200);
    assertEquals(1, classes.classOf("tray-7"));
    assertEquals(-1, classes.classOf("elsewhere"));
    nodes.onDelete(gb200, false);
    assertEquals(-1, classes.classOf("tray-7"));
  }

  @Test
  @DisplayName("HCA units come from the configured resource's capacity on the Node")
  void capacity() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .endMetadata()
            .withNewStatus()
            .withCapacity(
                Map.of("rdma/shared", new Quantity("4k"), ResourceNames.HCA, new Quantity("4")))
            .endStatus()
            .build();
    assertEquals(4000, Informers.hcaCapacity(node, SHARED.hca()));
    assertEquals(4, Informers.hcaCapacity(node, ResourceNames.HCA));
    assertEquals(0, Informers.hcaCapacity(node, "example.com/none"));
  }

  @Test
  @DisplayName("the agent's reported allocations count for the configured resources only")
  void allocations() {
    NodeTopology nt = new NodeTopology();
    nt.setStatus(
        new NodeTopologyStatus(
            null,
            List.of(
                new AllocationEntry("u", "ml", "p", "c", "rdma/shared", List.of("mlx5_0"), true),
                new AllocationEntry("u", "ml", "p", "c", ResourceNames.HCA, List.of("x"), true),
                new AllocationEntry(
                    "u", "ml", "p", "c", ResourceNames.GPU, List.of("GPU-0"), true)),
            List.of(),
            List.of()));
    assertEquals(
        List.of(
            new ReportedAllocation("ml", "p", "u", "c", "rdma/shared", List.of("mlx5_0")),
            new ReportedAllocation("ml", "p", "u", "c", ResourceNames.GPU, List.of("GPU-0"))),
        NodeTopologies.allocations(nt, SHARED));
  }
}
