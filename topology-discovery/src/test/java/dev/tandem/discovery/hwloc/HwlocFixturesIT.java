package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNodeKind;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every hwloc XML of shared/topologies, loaded through the real libhwloc 2.x (JNA), gives the GPU
 * and HCA counts and the closest GPU↔HCA pairs of the shared README's "Closest GPU↔HCA" section.
 */
@DisplayName("hwloc XML fixtures through libhwloc match the shared README")
class HwlocFixturesIT {

  static Stream<Arguments> readmeTable() {
    return Stream.of(
        Arguments.of(
            "dell-poweredge-xe8640-h100x4.xml",
            4,
            4,
            List.of(
                "cuda0 -> mlx5_0,mlx5_1 PIX",
                "cuda1 -> mlx5_2 PIX",
                "cuda2 -> mlx5_3 NODE",
                "cuda3 -> mlx5_3 PIX")),
        Arguments.of(
            "penguin-relion-x1904gt-p100x2.xml",
            2,
            1,
            List.of("cuda0 -> mlx5_0 PIX", "cuda1 -> mlx5_0 PIX")),
        Arguments.of(
            "ibm-ac922-lassen-v100x4.xml",
            4,
            4,
            List.of(
                "cuda0 -> mlx5_0,mlx5_1 NODE",
                "cuda1 -> mlx5_0,mlx5_1 NODE",
                "cuda2 -> mlx5_2,mlx5_3 NODE",
                "cuda3 -> mlx5_2,mlx5_3 NODE")),
        Arguments.of(
            "ibm-s822lc-coral-ea-p100x4.hwloc1.xml",
            4,
            2,
            List.of(
                "0002:01:00.0 -> mlx5_0 NODE",
                "0003:01:00.0 -> mlx5_0 NODE",
                "0006:01:00.0 -> mlx5_1 NODE",
                "0007:01:00.0 -> mlx5_1 NODE")),
        Arguments.of(
            "supermicro-as4124gs-mi50x8.xml",
            8,
            1,
            List.of(
                "rsmi0 -> mlx5_0 SYS",
                "rsmi1 -> mlx5_0 SYS",
                "rsmi2 -> mlx5_0 SYS",
                "rsmi3 -> mlx5_0 SYS",
                "rsmi4 -> mlx5_0 NODE",
                "rsmi5 -> mlx5_0 PHB",
                "rsmi6 -> mlx5_0 NODE",
                "rsmi7 -> mlx5_0 NODE")),
        Arguments.of(
            "penguin-altus-xo1114gt-mi50x4.xml",
            4,
            1,
            List.of(
                "opencl0d0 -> mlx5_0 NODE",
                "opencl0d1 -> mlx5_0 NODE",
                "opencl0d2 -> mlx5_0 SYS",
                "opencl0d3 -> mlx5_0 SYS")),
        Arguments.of(
            "hp-proliant-sl390s-g7-m2070x3.xml",
            3,
            1,
            List.of(
                "0000:06:00.0 -> mlx4_0 PHB",
                "0000:11:00.0 -> mlx4_0 SYS",
                "0000:14:00.0 -> mlx4_0 SYS")),
        Arguments.of("hpe-cray-ex235a-mi250x.xml", 8, 0, none("rsmi", 8)),
        Arguments.of("hpe-cray-ex255a-mi300a.xml", 4, 0, none("rsmi", 4)),
        Arguments.of(
            "aws-g4dn-metal-t4x8.xml",
            8,
            1,
            List.of(
                "cuda0 -> rdmap197s0 SYS",
                "cuda1 -> rdmap197s0 SYS",
                "cuda2 -> rdmap197s0 SYS",
                "cuda3 -> rdmap197s0 SYS",
                "cuda4 -> rdmap197s0 NODE",
                "cuda5 -> rdmap197s0 NODE",
                "cuda6 -> rdmap197s0 NODE",
                "cuda7 -> rdmap197s0 NODE")),
        Arguments.of("nvidia-dgx-2h.xml", 16, 0, none("nvml", 16)),
        Arguments.of("ibm-power8-p100x4-nvlink.xml", 4, 0, none("cuda", 4)));
  }

  private static List<String> none(String prefix, int count) {
    return Stream.iterate(0, i -> i + 1)
        .limit(count)
        .map(i -> prefix + i + " -> none")
        .sorted()
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readmeTable")
  @DisplayName("GPU/HCA counts and closest GPU↔HCA pairs equal the README's table")
  void closestPairsMatchReadme(String file, int gpus, int hcas, List<String> closest) {
    Machine m =
        TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("node-a", Topologies.path(file)))
            .machine();

    assertEquals(gpus, m.gpus().size(), "GPUs in " + file);
    assertEquals(hcas, m.hcas().size(), "HCAs in " + file);
    assertEquals(closest, Fixtures.closest(m), "closest GPU↔HCA in " + file);
  }

  @Test
  @DisplayName("every hwloc XML in the shared set is covered by the table above")
  void everyFixtureIsCovered() throws Exception {
    try (var files = Files.list(Topologies.directory())) {
      List<String> xml =
          files
              .map(p -> p.getFileName().toString())
              .filter(n -> n.endsWith(".xml"))
              .sorted()
              .toList();
      List<String> covered = readmeTable().map(a -> (String) a.get()[0]).sorted().toList();
      assertEquals(xml, covered);
    }
  }

  @Test
  @DisplayName(
      "XE8640's scrubbed all-zero GPU UUIDs fall back to PCI addresses, with a warning per GPU")
  void duplicateUuidsFallBackToAddresses() {
    Discovery d =
        TopologySources.discoverOnce(
            DiscoveryOptions.hwlocXml(
                "node-a", Topologies.path("dell-poweredge-xe8640-h100x4.xml")));

    assertEquals(
        List.of("0000:4e:00.0", "0000:5f:00.0", "0000:cb:00.0", "0000:db:00.0"),
        d.machine().gpus().stream().map(g -> g.id()).toList());
    assertEquals(
        4,
        d.notes().stream()
            .filter(n -> n.contains("GPU-00000000-0000-0000-0000-000000000000"))
            .count());
    assertEquals(4, d.warnings().size(), "the duplicate ids are the warnings: " + d.warnings());
    assertTrue(
        d.warnings().stream().allMatch(w -> w.contains("GPU-00000000") && d.notes().contains(w)),
        "each warning is also a published note");
    assertTrue(
        TopologySources.discoverOnce(
                DiscoveryOptions.hwlocXml(
                    "node-b", Topologies.path("penguin-relion-x1904gt-p100x2.xml")))
            .warnings()
            .isEmpty());
  }

  @Test
  @DisplayName(
      "GPUs with an NVML UUID get it as id; HCAs carry ibverbs name, GUID, port state and netdevs")
  void idsAndHcaAttributes() {
    Machine m =
        TopologySources.discoverOnce(
                DiscoveryOptions.hwlocXml(
                    "node-a", Topologies.path("penguin-relion-x1904gt-p100x2.xml")))
            .machine();

    assertEquals("GPU-affad486-897e-9778-18e8-26a7127927a8", m.gpus().get(0).id());
    assertEquals("Tesla P100-PCIE-16GB", m.gpus().get(0).model());
    var hca = m.device("mlx5_0").orElseThrow().hca();
    assertEquals("ec0d:9a03:0067:fdd4", hca.nodeGuid());
    assertEquals("ACTIVE", hca.portState());
    assertEquals(List.of("hsi0"), hca.netdevs());
    assertEquals(1, m.switches().size());
  }

  @Test
  @DisplayName(
      "the SL390s' onboard ATI ES1000 VGA (1002:515e) is not a GPU; mlx4 ConnectX-2 (class 0c06) is an HCA")
  void vgaIsNotGpu() {
    Machine m =
        TopologySources.discoverOnce(
                DiscoveryOptions.hwlocXml(
                    "node-a", Topologies.path("hp-proliant-sl390s-g7-m2070x3.xml")))
            .machine();

    assertTrue(m.gpus().stream().allMatch(g -> g.vendorId() == 0x10de));
    assertEquals(List.of("eth2", "ib0"), m.device("mlx4_0").orElseThrow().hca().netdevs());
  }

  @Test
  @DisplayName("MI50's own 1002:14a0/14a1 bridges fold into the GPU: no PCIe switch is reported")
  void onCardBridgesFolded() {
    Machine m =
        TopologySources.discoverOnce(
                DiscoveryOptions.hwlocXml(
                    "node-a", Topologies.path("supermicro-as4124gs-mi50x8.xml")))
            .machine();

    assertEquals(0, m.switches().size());
    m.gpus()
        .forEach(
            g ->
                assertTrue(
                    m.node(g.parentId()).orElseThrow().kind() == PcieNodeKind.ROOT_PORT,
                    g.name() + " hangs off its root port"));
  }

  @Test
  @DisplayName(
      "DGX-2H: 16 GPUs in pairs under 8 level-2 switches (PIX pairs), NVSwitches are not GPUs")
  void dgx2Pairs() {
    Machine m =
        TopologySources.discoverOnce(
                DiscoveryOptions.hwlocXml("node-a", Topologies.path("nvidia-dgx-2h.xml")))
            .machine();
    var index = LocalityIndex.of(m);

    assertEquals(16, m.gpus().size());
    assertEquals(Locality.PIX, index.locality(gpuAt(m, "0000:34:00.0"), gpuAt(m, "0000:36:00.0")));
    assertEquals(Locality.PXB, index.locality(gpuAt(m, "0000:34:00.0"), gpuAt(m, "0000:39:00.0")));
  }

  private static String gpuAt(Machine m, String address) {
    return m.gpus().stream()
        .filter(g -> g.address().toString().equals(address))
        .findFirst()
        .orElseThrow()
        .id();
  }
}
