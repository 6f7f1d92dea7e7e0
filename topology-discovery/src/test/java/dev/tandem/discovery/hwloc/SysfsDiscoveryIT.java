package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sysfs source against the hwloc source on the same machine: each fixture is loaded through
 * libhwloc, rendered as the sysfs/procfs tree Linux would show ({@link SysfsTree}), and read back.
 */
@DisplayName("sysfs discovery gives the same model as hwloc for the same machine")
class SysfsDiscoveryIT {

  private final Hwloc libhwloc = new Hwloc();

  /** libhwloc's v2 export of a fixture. */
  private String export(Path xml) {
    try {
      return libhwloc.exportDocument(Files.readAllBytes(xml), xml.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "dell-poweredge-xe8640-h100x4.xml", "penguin-relion-x1904gt-p100x2.xml",
            "ibm-ac922-lassen-v100x4.xml",
        "supermicro-as4124gs-mi50x8.xml", "penguin-altus-xo1114gt-mi50x4.xml",
            "hp-proliant-sl390s-g7-m2070x3.xml",
        "nvidia-dgx-2h.xml", "aws-g4dn-metal-t4x8.xml", "ibm-s822lc-coral-ea-p100x4.hwloc1.xml"
      })
  @DisplayName("same PCIe nodes, devices, parents, NUMA nodes, HCA attributes and localities")
  void sameModel(String file, @TempDir Path root) {
    Path xml = Topologies.path(file);
    Machine hwloc =
        TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", xml)).machine();
    SysfsTree.render(export(xml), root);

    Discovery sysfs = TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", root));

    assertEquals("sysfs", sysfs.source());
    assertEquals(sorted(hwloc), sorted(sysfs.machine()));
    assertEquals(view(hwloc), view(sysfs.machine()));
    assertEquals(localities(hwloc), localities(sysfs.machine()));
    assertEquals(Fixtures.closest(hwloc).size(), sysfs.machine().gpus().size());
  }

  @Test
  @DisplayName("the rendered tree also carries what only sysfs knows: uverbs devices")
  void uverbsFromSysfs(@TempDir Path root) {
    SysfsTree.render(export(Topologies.path("penguin-relion-x1904gt-p100x2.xml")), root);

    Machine m = TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", root)).machine();

    assertEquals("uverbs0", m.device("mlx5_0").orElseThrow().hca().uverbs());
    assertEquals("GPU-affad486-897e-9778-18e8-26a7127927a8", m.gpus().get(0).id());
  }

  @Test
  @DisplayName("HCAs found by hwloc get uverbs device and port state from sysfs (live nodes)")
  void hcaDetailsFromSysfs(@TempDir Path root) throws Exception {
    Path xml = Topologies.path("penguin-relion-x1904gt-p100x2.xml");
    SysfsTree.render(export(xml), root);
    Path port = root.resolve("sys/class/infiniband/mlx5_0/ports/1");
    Files.writeString(port.resolve("link_layer"), "InfiniBand\n");
    Files.writeString(port.resolve("rate"), "100 Gb/sec (4X EDR)\n");
    Machine hwloc =
        TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", xml)).machine();
    List<String> notes = new ArrayList<>();

    Machine m = SysfsReader.withHcaDetails(hwloc, root, notes);

    var hca = m.device("mlx5_0").orElseThrow().hca();
    assertEquals("uverbs0", hca.uverbs());
    assertEquals("InfiniBand", hca.linkLayer());
    assertEquals("100 Gb/sec (4X EDR)", hca.rate());
    assertEquals(List.of("hsi0"), hca.netdevs());
    assertTrue(notes.get(0).contains("[mlx5_0]"), notes.toString());
  }

  @Test
  @DisplayName("an HCA function with a physfn link is a virtual function of that PF")
  void virtualFunction(@TempDir Path root) throws Exception {
    SysfsTree.render(export(Topologies.path("penguin-relion-x1904gt-p100x2.xml")), root);
    Path function = root.resolve("sys/bus/pci/devices/0000:08:00.0").toRealPath();
    Files.createSymbolicLink(function.resolve("physfn"), Path.of("../0000:08:00.1"));

    var hca =
        TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", root))
            .machine()
            .device("mlx5_0")
            .orElseThrow()
            .hca();

    assertTrue(hca.virtualFunction());
    assertEquals("0000:08:00.1", hca.physicalFunction().toString());
  }

  @Test
  @DisplayName(
      "an unreadable bridge is skipped with a note; what is below it hangs off the next bridge up")
  void unreadableBridge(@TempDir Path root) throws Exception {
    SysfsTree.render(export(Topologies.path("penguin-relion-x1904gt-p100x2.xml")), root);
    Files.delete(root.resolve("sys/bus/pci/devices/0000:03:04.0/class"));

    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", root));

    assertEquals("pci:0000:02:00.0", d.machine().gpus().get(0).parentId());
    assertTrue(
        d.notes().stream().anyMatch(n -> n.contains("0000:03:04.0 (no readable class")),
        d.notes().toString());
  }

  @Test
  @DisplayName("this machine's real sysfs (no GPU, no HCA) gives the empty topology without error")
  void realSysfsIsEmpty() {
    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", Path.of("/")));

    assertEquals(Machine.empty("node-a", "sysfs"), d.machine());
    assertTrue(d.notes().stream().anyMatch(n -> n.startsWith("sysfs: /")), d.notes().toString());
  }

  @Test
  @DisplayName(
      "this machine through libhwloc then sysfs then libibverbs: empty topology, notes say why")
  void liveIsEmptyWithNotes() {
    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.live("node-a"));

    assertTrue(d.machine().devices().isEmpty());
    assertTrue(d.machine().pcie().isEmpty());
    assertTrue(d.notes().stream().anyMatch(n -> n.startsWith("hwloc")), d.notes().toString());
    assertTrue(
        d.notes().stream().anyMatch(n -> n.startsWith("ibverbs: no RDMA devices")),
        d.notes().toString());
  }

  @Test
  @DisplayName("an empty directory as sysfs root is a machine without PCI devices, not an error")
  void emptyRoot(@TempDir Path root) {
    Discovery d = TopologySources.discoverOnce(DiscoveryOptions.sysfs("node-a", root));

    assertTrue(d.machine().devices().isEmpty());
    assertTrue(d.notes().get(0).contains("does not exist"), d.notes().toString());
  }

  private static List<String> sorted(Machine m) {
    return m.pcie().stream().map(Object::toString).sorted().toList();
  }

  private static List<String> view(Machine m) {
    List<String> out = new ArrayList<>();
    for (Device d : m.devices()) {
      String hca =
          d.hca() == null
              ? ""
              : " hca="
                  + d.hca().ibDevice()
                  + "/"
                  + d.hca().portState()
                  + "/"
                  + d.hca().nodeGuid()
                  + "/"
                  + d.hca().netdevs().stream().sorted().toList()
                  + "/"
                  + d.hca().virtualFunction();
      out.add(
          d.id()
              + " "
              + d.kind()
              + " "
              + d.address()
              + " numa="
              + d.numaNode()
              + " parent="
              + d.parentId()
              + " "
              + Integer.toHexString(d.vendorId())
              + ":"
              + Integer.toHexString(d.deviceId())
              + hca);
    }
    return out;
  }

  private static List<String> localities(Machine m) {
    LocalityIndex index = LocalityIndex.of(m);
    List<String> out = new ArrayList<>();
    for (Device a : m.devices()) {
      for (Device b : m.devices()) {
        out.add(a.id() + "~" + b.id() + "=" + index.locality(a.id(), b.id()));
      }
    }
    return out;
  }
}
