package dev.tandem.discovery.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNodeKind;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** NCCL topology files (vendor-published) give the vendor's GPU↔NIC grouping. */
@DisplayName("NCCL topology files give the vendor's grouping")
class NcclTopoReaderTest {

  private static Machine load(String file) {
    return TopologySources.discoverOnce(
            DiscoveryOptions.ncclTopo("vm-1", Topologies.path("nccl-topo/" + file)))
        .machine();
  }

  @Test
  @DisplayName("Azure NDv4: 2 GPUs and 2 IB NICs per switch, PIX within a switch, 4 NUMA nodes")
  void ndv4() {
    Machine m = load("azure-ndv4-a100.xml");

    assertEquals(8, m.gpus().size());
    assertEquals(8, m.hcas().size());
    assertEquals(List.of(0, 1, 2, 3), m.numaNodes());
    assertEquals(
        List.of(
            "0001:00:00.0 -> 0101:00:00.0,0102:00:00.0 PIX",
            "0002:00:00.0 -> 0101:00:00.0,0102:00:00.0 PIX",
            "0003:00:00.0 -> 0103:00:00.0,0104:00:00.0 PIX",
            "0004:00:00.0 -> 0103:00:00.0,0104:00:00.0 PIX",
            "000b:00:00.0 -> 0105:00:00.0,0106:00:00.0 PIX",
            "000c:00:00.0 -> 0105:00:00.0,0106:00:00.0 PIX",
            "000d:00:00.0 -> 0107:00:00.0,0108:00:00.0 PIX",
            "000e:00:00.0 -> 0107:00:00.0,0108:00:00.0 PIX"),
        closestByAddress(m));
    LocalityIndex index = LocalityIndex.of(m);
    assertEquals(Locality.PIX, index.locality("0001:00:00.0", "0002:00:00.0"));
    assertEquals(Locality.SYS, index.locality("0001:00:00.0", "0003:00:00.0"));
  }

  @Test
  @DisplayName("Azure NDv5: one GPU and one IB NIC per switch, NODE between switches of one CPU")
  void ndv5() {
    Machine m = load("azure-ndv5-h100.xml");
    LocalityIndex index = LocalityIndex.of(m);

    assertEquals(8, m.pcie().stream().filter(n -> n.kind() == PcieNodeKind.ROOT_PORT).count());
    assertTrue(
        closestByAddress(m).stream().allMatch(l -> l.endsWith(" PIX") && !l.contains(",")),
        closestByAddress(m).toString());
    assertEquals(Locality.PIX, index.locality("0001:00:00.0", "0101:00:00.0"));
    assertEquals(Locality.NODE, index.locality("0001:00:00.0", "0102:00:00.0"));
  }

  @Test
  @DisplayName(
      "AWS p4d: 4 switches of 2 GPUs and 1 EFA; the EFA has no net name, so its bus id is its id")
  void p4d() {
    Machine m = load("aws-p4d.24xlarge.xml");

    assertEquals(8, m.gpus().size());
    assertEquals(
        List.of("0000:10:1b.0", "0000:20:1b.0", "0000:90:1b.0", "0000:a0:1b.0"),
        m.hcas().stream().map(Device::id).toList());
    assertEquals(
        List.of(
            "0000:10:1c.0 -> 0000:10:1b.0 PIX", "0000:10:1d.0 -> 0000:10:1b.0 PIX",
            "0000:20:1c.0 -> 0000:20:1b.0 PIX", "0000:20:1d.0 -> 0000:20:1b.0 PIX",
            "0000:90:1c.0 -> 0000:90:1b.0 PIX", "0000:90:1d.0 -> 0000:90:1b.0 PIX",
            "0000:a0:1c.0 -> 0000:a0:1b.0 PIX", "0000:a0:1d.0 -> 0000:a0:1b.0 PIX"),
        closestByAddress(m));
  }

  @Test
  @DisplayName("AWS p5: 8 switches, each with 1 GPU and 4 EFA named rdmapNNs0")
  void p5() {
    Machine m = load("aws-p5.48xlarge.xml");

    assertEquals(8, m.gpus().size());
    assertEquals(32, m.hcas().size());
    assertTrue(
        closestByAddress(m).contains("0000:4f:00.0 -> rdmap79s0,rdmap80s0,rdmap81s0,rdmap82s0 PIX"),
        closestByAddress(m).toString());
    assertEquals(8, closestByAddress(m).stream().filter(l -> l.split(",").length == 4).count());
    assertEquals("100 Gb/sec", m.device("rdmap79s0").orElseThrow().hca().rate());
  }

  @Test
  @DisplayName("an NCCL file that is not well-formed: the line and column where it breaks")
  void brokenNccl() {
    var e =
        assertThrows(
            DiscoveryException.class,
            () ->
                NcclTopoReader.read(
                    "<system version=\"1\">\n  <cpu>\n</system>\n", "vm-1", "t.xml"));
    assertTrue(
        e.getMessage().startsWith("t.xml is not well-formed XML at line 3, column "),
        e.getMessage());
  }

  @Test
  @DisplayName("an hwloc XML given as NCCL topology is refused with the file name and a hint")
  void hwlocXmlIsNotNccl() {
    var e =
        assertThrows(
            DiscoveryException.class,
            () ->
                TopologySources.discoverOnce(
                    DiscoveryOptions.ncclTopo(
                        "vm-1", Topologies.path("penguin-relion-x1904gt-p100x2.xml"))));

    assertTrue(e.getMessage().contains("penguin-relion-x1904gt-p100x2.xml"), e.getMessage());
    assertTrue(e.getMessage().contains("--hwloc-xml"), e.getMessage());
  }

  @Test
  @DisplayName("a <nic> outside any <pci> cannot be placed: left out, with a note")
  void looseNic() {
    String xml =
        "<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x030200\"/>"
            + "<nic><net name=\"mlx5_0\"/></nic></cpu></system>";

    Discovery d = NcclTopoReader.read(xml, "vm-1", "inline.xml");

    assertEquals(1, d.machine().gpus().size());
    assertEquals(0, d.machine().hcas().size());
    assertTrue(
        d.notes().stream().anyMatch(n -> n.contains("1 <nic> element(s) directly under <cpu>")),
        d.notes().toString());
  }

  private static List<String> closestByAddress(Machine m) {
    LocalityIndex index = LocalityIndex.of(m);
    return m.gpus().stream()
        .map(
            g -> {
              Locality best =
                  m.hcas().stream()
                      .map(h -> index.locality(g.id(), h.id()))
                      .min(Comparator.naturalOrder())
                      .orElseThrow();
              List<String> near =
                  m.hcas().stream()
                      .filter(h -> index.locality(g.id(), h.id()) == best)
                      .map(Device::id)
                      .toList();
              return g.address() + " -> " + String.join(",", near) + " " + best;
            })
        .sorted()
        .toList();
  }
}
