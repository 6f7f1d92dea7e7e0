package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNodeKind;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Java side of the hwloc path: parsing hwloc 2.x XML text (no libhwloc involved). */
@DisplayName("hwloc XML parsing (pure)")
class HwlocXmlReaderTest {

  private static Discovery parse(String file) throws Exception {
    String xml = Files.readString(Topologies.path(file));
    return HwlocXmlReader.read(xml, "node-a", "hwloc-xml", file);
  }

  @Test
  @DisplayName(
      "the Relion's 2 GPUs and its HCA share the PEX8796 switch: root port, upstream, downstream")
  void relionTree() throws Exception {
    Machine m = parse("penguin-relion-x1904gt-p100x2.xml").machine();

    assertEquals(
        List.of("numa:0", "hostbridge:0000:00", "pci:0000:00:03.0", "pci:0000:02:00.0"),
        m.pcie().stream().limit(4).map(n -> n.id()).toList());
    assertEquals(PcieNodeKind.SWITCH_UPSTREAM, m.node("pci:0000:02:00.0").orElseThrow().kind());
    assertEquals(
        PcieNodeKind.SWITCH_DOWNSTREAM, m.node(m.gpus().get(0).parentId()).orElseThrow().kind());
    assertEquals("cuda0", m.gpus().get(0).name());
  }

  @Test
  @DisplayName(
      "host bridges of one package form one CPU domain named by its NUMA nodes (XE8640, SNC4)")
  void packageDomains() throws Exception {
    Machine m = parse("dell-poweredge-xe8640-h100x4.xml").machine();

    assertEquals(
        List.of("numa:0-3", "numa:4-7"),
        m.pcie().stream()
            .filter(n -> n.kind() == PcieNodeKind.CPU_DOMAIN)
            .map(n -> n.id())
            .sorted()
            .toList());
    assertEquals(7, m.device("0000:cb:00.0").orElseThrow().numaNode());
  }

  @Test
  @DisplayName("duplicate GPU UUIDs become PCI-address ids and each one is reported")
  void duplicates() throws Exception {
    Discovery d = parse("dell-poweredge-xe8640-h100x4.xml");

    assertEquals(4, d.notes().stream().filter(n -> n.startsWith("device id GPU-00000000")).count());
    assertTrue(d.machine().gpus().stream().allMatch(g -> g.id().equals(g.address().toString())));
  }

  @Test
  @DisplayName("XML whose root is not <topology> is refused, naming the input")
  void notTopology() {
    var e =
        assertThrows(
            DiscoveryException.class,
            () -> HwlocXmlReader.read("<system version=\"1\"/>", "node-a", "hwloc-xml", "x.xml"));

    assertTrue(e.getMessage().startsWith("x.xml is not an hwloc topology"), e.getMessage());
  }

  @Test
  @DisplayName("a DOCTYPE naming an external DTD is not fetched")
  void noExternalDtd() {
    String xml =
        "<?xml version=\"1.0\"?><!DOCTYPE topology SYSTEM \"http://127.0.0.1:1/hwloc2.dtd\">"
            + "<topology version=\"2.0\"><object type=\"Machine\" os_index=\"0\"/></topology>";

    Discovery d = HwlocXmlReader.read(xml, "node-a", "hwloc-xml", "dtd.xml");

    assertTrue(d.machine().devices().isEmpty());
  }
}
