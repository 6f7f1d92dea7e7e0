package dev.tandem.extender.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.agent.crd.AllocationEntry;
import dev.tandem.agent.crd.NodeTopologyMapper;
import dev.tandem.agent.crd.NodeTopologyStatus;
import dev.tandem.extender.TestMachines;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.topology.model.DeviceKind;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("demo cluster: bundled real topologies, or a directory of hwloc XML and NodeTopology files")
class DemoClusterIT {

  @Test
  @DisplayName("the bundled fixtures load through libhwloc and NCCL readers; the XE8640 has 4 GPUs and 4 HCAs")
  void bundled() {
    ClusterState state = DemoCluster.fromBundledFixtures();
    assertTrue(state.size() >= 6, "nodes: " + state.size());
    var xe = state.node("dell-poweredge-xe8640-h100x4");
    assertEquals(4, xe.free().freeUnits(DeviceKind.GPU));
    assertEquals(4, xe.free().freeUnits(DeviceKind.HCA));
    assertTrue(state.ready());
  }

  @Test
  @DisplayName("--demo-topologies: node named after the XML file; NodeTopology YAML with its allocations")
  void directory(@TempDir Path dir) throws Exception {
    Files.copy(Path.of("../node-topology-agent/src/main/resources/fixtures/hwloc/penguin-relion-x1904gt-p100x2.xml"),
        dir.resolve("relion.xml"));
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    var resource = NodeTopologyMapper.toResource(TestMachines.pixNode(), new NodeTopologyStatus("2026-11-22T03:00:00Z",
        List.of(new AllocationEntry("u1", "ml", "p1", "main", "nvidia.com/gpu", List.of(gpu), true)),
        List.of(), List.of()));
    Files.writeString(dir.resolve("pix.yaml"), new KubernetesSerialization().asYaml(resource));
    Files.writeString(dir.resolve("README.txt"), "ignored");
    ClusterState state = DemoCluster.fromDirectory(dir);
    assertEquals(2, state.size());
    assertEquals(2, state.node("relion").free().freeUnits(DeviceKind.GPU));
    assertEquals(3, state.node("pix-node").free().freeUnits(DeviceKind.GPU));
    assertThrows(IllegalArgumentException.class, () -> DemoCluster.fromDirectory(Files.createDirectory(dir.resolve("e"))));
  }
}
