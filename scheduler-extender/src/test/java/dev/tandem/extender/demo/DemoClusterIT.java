package dev.tandem.extender.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.DeviceKind;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "demo cluster: bundled NodeTopology objects of real servers, or a directory of NodeTopology files")
class DemoClusterIT {

  @Test
  @DisplayName(
      "the bundled NodeTopology objects of ten real servers, two Grace trays and an Azure GB300 VM"
          + " load; the XE8640 has 4 GPUs and 4 HCAs, the GB300 tray 4 and 4, the GB200 tray 4 and"
          + " 8, the VM 4 and 4 VFs")
  void bundled() {
    ClusterParts cluster = DemoCluster.fromBundledFixtures();
    ClusterState state = cluster.state();
    assertEquals(13, state.size());
    var xe = state.node("dell-poweredge-xe8640-h100x4");
    assertEquals(4, xe.free().freeUnits(DeviceKind.GPU));
    assertEquals(4, xe.free().freeUnits(DeviceKind.HCA));
    assertEquals(4, state.node("gb300-cx8").free().freeUnits(DeviceKind.HCA));
    assertEquals(8, state.node("gb200-cx7").free().freeUnits(DeviceKind.HCA));
    assertEquals(4, state.node("azure-gb300").free().freeUnits(DeviceKind.GPU));
    assertEquals(4, state.node("azure-gb300").free().freeUnits(DeviceKind.HCA));
    assertTrue(cluster.readiness().ready());
  }

  @Test
  @DisplayName("--demo-topologies: NodeTopology JSON and YAML, with their allocations")
  void directory(@TempDir Path dir) throws Exception {
    try (var in =
        DemoCluster.class
            .getClassLoader()
            .getResourceAsStream("demo/penguin-relion-x1904gt-p100x2.json")) {
      Files.copy(in, dir.resolve("relion.json"));
    }
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    var resource =
        NodeTopologyMapper.toResource(
            TestMachines.pixNode(),
            new NodeTopologyStatus(
                "2026-11-22T03:00:00Z",
                List.of(
                    new AllocationEntry(
                        "u1", "ml", "p1", "main", "nvidia.com/gpu", List.of(gpu), true)),
                List.of(),
                List.of()));
    Files.writeString(dir.resolve("pix.yaml"), new KubernetesSerialization().asYaml(resource));
    Files.writeString(dir.resolve("README.txt"), "ignored");
    ClusterState state = DemoCluster.fromDirectory(dir).state();
    assertEquals(2, state.size());
    assertEquals(2, state.node("penguin-relion-x1904gt-p100x2").free().freeUnits(DeviceKind.GPU));
    assertEquals(3, state.node("pix-node").free().freeUnits(DeviceKind.GPU));
    assertThrows(
        IllegalArgumentException.class,
        () -> DemoCluster.fromDirectory(Files.createDirectory(dir.resolve("e"))));
  }

  @Test
  @DisplayName("--demo-topologies with an hwloc XML file: an error that says how to convert it")
  void xmlRefused(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("relion.xml"), "<topology/>");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> DemoCluster.fromDirectory(dir));
    assertTrue(e.getMessage().contains("node-topology-agent.jar dump --hwloc-xml"), e.getMessage());
  }
}
