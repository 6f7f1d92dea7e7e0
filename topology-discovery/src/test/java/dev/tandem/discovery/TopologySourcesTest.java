package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.GraceTray;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.model.Machine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The factory picks the adapter the options name; each source keeps its own note memory. */
@DisplayName("topology sources: one adapter per input, chosen by the factory")
class TopologySourcesTest {

  @Test
  @DisplayName("an NCCL file is read by the NCCL adapter, a sysfs root by the sysfs adapter")
  void factoryPicksTheAdapter(@TempDir Path root) {
    Path nccl = Topologies.path("nccl-topo/azure-ndv4-a100.xml");

    assertEquals(
        "nccl",
        TopologySources.create(DiscoveryOptions.ncclTopo("vm-1", nccl)).discover().source());
    Discovery sysfs = TopologySources.create(DiscoveryOptions.sysfs("vm-1", root)).discover();
    assertEquals("sysfs", sysfs.source());
    assertTrue(sysfs.machine().devices().isEmpty());
  }

  @Test
  @DisplayName(
      "--sysfs-only never asks libmlx5: a Data Direct function is a note, no ibverbs note, no tie")
  void sysfsOnlyNeverAsksLibmlx5(@TempDir Path root) throws IOException {
    GraceTray.GB300_CX8.write(root);

    Discovery d =
        TopologySources.discoverOnce(
            DiscoveryOptions.fromNodeSettings("tray", null, null, root, true));

    assertEquals("sysfs", d.source());
    assertTrue(
        d.notes().stream().noneMatch(n -> n.startsWith("ibverbs:")),
        "libibverbs/libmlx5 were asked: " + d.notes());
    assertTrue(
        d.notes().stream()
            .anyMatch(
                n ->
                    n.startsWith(
                        "sysfs: Data Direct function 0008:03:00.0 (15b3:2100) is tied to no NIC:"
                            + " libmlx5 not asked")),
        d.notes().toString());
    assertNull(d.machine().device("mlx5_0").get().hca().dataDirect());
  }

  @Test
  @DisplayName(
      "a note is logged at INFO the first time a source sees it, at DEBUG after; a new source starts afresh")
  void notesOncePerSource() {
    Discovery d = new Discovery(Machine.empty("n", "test"), "test", List.of("a", "b"));
    DiscoveryLog log = new DiscoveryLog();

    assertEquals(List.of("a", "b"), log.log(d));
    assertEquals(List.of(), log.log(d));
    assertEquals(List.of("a", "b"), new DiscoveryLog().log(d));
  }
}
