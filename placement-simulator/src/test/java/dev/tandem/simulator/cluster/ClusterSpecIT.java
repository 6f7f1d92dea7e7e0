package dev.tandem.simulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.fixtures.DemoFixture;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterSpecIT {

  @TempDir Path dir;

  @Test
  @DisplayName("hwloc XML and NCCL topology files with counts make a mixed cluster")
  void topologyFiles() {
    Cluster c =
        ClusterSpec.load(
            List.of(
                ClusterSpec.parse(Topologies.path("dell-poweredge-xe8640-h100x4.xml") + ":3"),
                ClusterSpec.parse(Topologies.path("nccl-topo/azure-ndv4-a100.xml") + ":2")));
    assertEquals(5, c.nodes().size());
    assertEquals(3 * 4 + 2 * 8, c.count(DeviceKind.GPU));
    assertEquals(3, c.composition().get("dell-poweredge-xe8640-h100x4"));
  }

  @Test
  @DisplayName("topology files carry no rails: the cluster's HCAs get them by PCI order")
  void railsByPciOrder() {
    Cluster c =
        ClusterSpec.load(
            List.of(new ClusterSpec(Topologies.path("nccl-topo/azure-ndv5-h100.xml"), 1)));
    List<Integer> rails =
        c.nodes().get(0).index().machine().hcas().stream()
            .map(h -> h.hca().rail())
            .sorted()
            .toList();
    assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), rails);
  }

  @Test
  @DisplayName("a kubectl get nodetopologies -o json dump reads back as the same machines")
  void nodeTopologyDump() throws Exception {
    Cluster xml =
        ClusterSpec.load(
            List.of(new ClusterSpec(Topologies.path("nccl-topo/azure-ndv5-h100.xml"), 1)));
    String item =
        new KubernetesSerialization()
            .asJson(NodeTopologyMapper.toResource(xml.nodes().get(0).index().machine()));
    Path dump = dir.resolve("dump.json");
    Files.writeString(dump, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + item + "]}");
    Cluster fromDump = ClusterSpec.load(List.of(ClusterSpec.parse(dump + ":4")));
    assertEquals(4, fromDump.nodes().size());
    assertEquals(
        xml.nodes().get(0).index().machine().devices(),
        fromDump.nodes().get(0).index().machine().devices());
  }

  @Test
  @DisplayName(
      "the demo's Grace trays as nodes: a 1+1 switch pod is PIX on the GB300 (Data Direct),"
          + " refused on the GB200 (ConnectX-7)")
  void graceTrays() {
    Cluster c =
        ClusterSpec.load(
            List.of(
                ClusterSpec.parse(grace(GraceTray.GB300_CX8) + ":2"),
                ClusterSpec.parse(grace(GraceTray.GB200_CX7) + ":3")));
    assertEquals(
        List.of("gb300-cx8-0", "gb300-cx8-1", "gb200-cx7-0", "gb200-cx7-1", "gb200-cx7-2"),
        c.nodes().stream().map(SimNode::name).toList());
    assertEquals(2 * 4 + 3 * 8, c.count(DeviceKind.HCA));
    AllocationRequest oneAndOne = new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT);
    AllocationResult gb300 = allocate(c.nodes().get(0), oneAndOne);
    assertTrue(gb300 instanceof Allocation a && a.worst() == Locality.PIX, gb300.toString());
    assertTrue(allocate(c.nodes().get(2), oneAndOne) instanceof Infeasible);
  }

  private static Path grace(GraceTray tray) {
    return DemoFixture.of(tray).published();
  }

  private static AllocationResult allocate(SimNode node, AllocationRequest request) {
    return node.allocator().allocate(request, Availability.allFree(node.index(), 1));
  }

  @Test
  @DisplayName("files that do not parse are refused naming the file and where")
  void badFiles() throws Exception {
    Path json = dir.resolve("bad.json");
    Files.writeString(json, "{\"items\": [\n  {\"kind\": \"NodeTopology\",]\n}");
    String jsonError =
        assertThrows(
                ClusterFileException.class,
                () -> ClusterSpec.load(List.of(ClusterSpec.parse(json.toString()))))
            .getMessage();
    assertTrue(jsonError.startsWith(json + ":2:"), jsonError);
    Path wrongKind = dir.resolve("pod.json");
    Files.writeString(wrongKind, "{\"kind\": \"Pod\"}");
    assertTrue(
        assertThrows(
                ClusterFileException.class,
                () -> ClusterSpec.load(List.of(ClusterSpec.parse(wrongKind.toString()))))
            .getMessage()
            .contains("field 'kind' is 'Pod', expected NodeTopology"));
    Path xml = dir.resolve("broken.xml");
    Files.writeString(xml, "<topology>\n <object type=\"Machine\"\n</topology>\n");
    String xmlError =
        assertThrows(
                ClusterFileException.class,
                () -> ClusterSpec.load(List.of(ClusterSpec.parse(xml.toString()))))
            .getMessage();
    assertTrue(xmlError.startsWith(xml + " is not well-formed XML at line 3, column "), xmlError);
    Path notHwloc = dir.resolve("other.xml");
    Files.writeString(notHwloc, "<topology><nothing/></topology>");
    String hwlocError =
        assertThrows(
                ClusterFileException.class,
                () -> ClusterSpec.load(List.of(ClusterSpec.parse(notHwloc.toString()))))
            .getMessage();
    assertTrue(hwlocError.startsWith("libhwloc cannot load " + notHwloc), hwlocError);
  }
}
