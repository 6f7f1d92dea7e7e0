package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.Topologies;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad inputs to the hwloc path give errors that name the file and the reason. */
@DisplayName("hwloc input errors name the file and the reason")
class HwlocErrorsIT {

  @TempDir Path dir;

  private DiscoveryException fail(Path file) {
    return assertThrows(
        DiscoveryException.class,
        () -> TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", file)));
  }

  @Test
  @DisplayName("a missing file")
  void missing() {
    Path file = dir.resolve("absent.xml");
    assertEquals("hwloc XML file " + file + " does not exist", fail(file).getMessage());
  }

  @Test
  @DisplayName("a directory")
  void directory() {
    assertTrue(fail(dir).getMessage().contains("is a directory"));
  }

  @Test
  @DisplayName("a file that is not XML")
  void notXml() throws Exception {
    Path file =
        Files.writeString(dir.resolve("lstopo.txt"), "Machine (64GB total)\n  Package L#0\n");
    String message = fail(file).getMessage();
    assertTrue(message.startsWith(file + " is not well-formed XML"), message);
  }

  @Test
  @DisplayName("XML broken after its root element: the line and column where it breaks")
  void brokenInside() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("broken.xml"),
            "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n"
                + " <object type=\"Machine\" os_index=\"0\"\n</topology>\n");
    String message = fail(file).getMessage();
    assertTrue(message.startsWith(file + " is not well-formed XML at line 4, column "), message);
    assertTrue(!message.contains("ParseError"), message);
  }

  @Test
  @DisplayName("hwloc 3.0 XML, which libhwloc 2.x cannot import")
  void version3() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("v3.xml"),
            "<?xml version=\"1.0\"?>\n<topology version=\"3.0\">\n<object type=\"Machine\" os_index=\"0\"/>\n</topology>\n");
    String message = fail(file).getMessage();
    assertTrue(
        message.contains("hwloc XML version 3.0") && message.contains(file.toString()), message);
  }

  @Test
  @DisplayName("a <topology> without any object: libhwloc refuses it")
  void emptyTopology() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("empty.xml"), "<?xml version=\"1.0\"?>\n<topology version=\"2.0\"/>\n");
    String message = fail(file).getMessage();
    assertTrue(message.startsWith("libhwloc cannot load " + file), message);
  }

  @Test
  @DisplayName("an NCCL file given as hwloc XML says to use --nccl-topo")
  void ncclAsHwloc() {
    String message = fail(Topologies.path("nccl-topo/azure-ndv4-a100.xml")).getMessage();
    assertTrue(message.contains("--nccl-topo"), message);
  }

  @Test
  @DisplayName("a machine without I/O devices loads as the empty topology")
  void machineWithoutDevices() throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("bare.xml"),
            """
        <?xml version="1.0" encoding="UTF-8"?>
        <topology version="2.0">
          <object type="Machine" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" allowed_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
            <object type="NUMANode" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1000000"/>
            <object type="PU" os_index="0" cpuset="0x00000001" complete_cpuset="0x00000001" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2"/>
          </object>
        </topology>
        """);

    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", file));

    assertTrue(d.machine().devices().isEmpty() && d.machine().pcie().isEmpty());
  }

  @Test
  @DisplayName(
      "an hwloc library of API 1.x or 3.x is refused, saying what was found and what is needed")
  void apiVersion() {
    var e = assertThrows(DiscoveryException.class, () -> Hwloc.checkVersion(0x00030000));
    assertTrue(
        e.getMessage().contains("3.0")
            && e.getMessage().contains("needs API 2.x")
            && e.getMessage().contains("libhwloc15"),
        e.getMessage());
    Hwloc.checkVersion(new Hwloc().library().hwloc_get_api_version());
  }

  @Test
  @DisplayName("the hwloc v1 XML (S822LC, hwloc 1.11) loads through libhwloc 2.x")
  void v1Format() {
    Discovery d =
        TopologySources.discoverOnce(
            DiscoveryOptions.hwlocXml(
                "node-a", Topologies.path("ibm-s822lc-coral-ea-p100x4.hwloc1.xml")));
    assertEquals(4, d.machine().gpus().size());
  }
}
