package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.PcieNodeKind;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * CPU-less NUMA nodes in an hwloc export (a Grace GPU's HBM): hwloc 2.11's {@code GPUMemory} node
 * in a package's nodeset, and an older hwloc's node attached to the machine itself, are neither a
 * CPU domain nor a device's NUMA node.
 */
@DisplayName("hwloc: CPU-less NUMA nodes are no alignment domain")
class HwlocGpuMemoryTest {

  private static final String PACKAGE_0 = "nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\"";

  @Test
  @DisplayName("GPUMemory in a package and a machine-level CPU-less node: the domain is node 0")
  void memoryNodesAreNoDomain() throws IOException {
    String xml =
        Files.readString(Topologies.path("penguin-relion-x1904gt-p100x2.xml"))
            .replaceFirst(
                "(<object type=\"Package\" os_index=\"0\" [^>]*)" + PACKAGE_0,
                "$1nodeset=\"0x00000005\" complete_nodeset=\"0x00000005\"")
            .replace(
                "<object type=\"NUMANode\" os_index=\"0\"",
                "<object type=\"NUMANode\" os_index=\"2\" subtype=\"GPUMemory\""
                    + " nodeset=\"0x00000004\" gp_index=\"950\" local_memory=\"0\"/>"
                    + "<object type=\"NUMANode\" os_index=\"0\"")
            .replace(
                "    <object type=\"Package\" os_index=\"0\"",
                "    <object type=\"NUMANode\" os_index=\"3\" nodeset=\"0x00000008\""
                    + " gp_index=\"951\" local_memory=\"0\"/>"
                    + "<object type=\"Package\" os_index=\"0\"");
    assertTrue(xml.contains("subtype=\"GPUMemory\"") && xml.contains("os_index=\"3\""));
    assertTrue(xml.contains("nodeset=\"0x00000005\""), "package 0's nodeset was not widened");

    Machine m = HwlocXmlReader.read(xml, "grace", "hwloc-xml", "relion + GPU memory").machine();

    assertEquals(List.of(0), m.numaNodes(), "the Relion's devices are all on package 0");
    assertEquals(
        List.of(List.of(0)),
        m.pcie().stream()
            .filter(n -> n.kind() == PcieNodeKind.CPU_DOMAIN)
            .map(PcieNode::numaNodes)
            .toList());
    assertEquals(List.of(0, 0), m.gpus().stream().map(Device::numaNode).toList());
  }
}
