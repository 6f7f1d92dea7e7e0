package dev.tandem.discovery.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.hwloc.Hwloc;
import dev.tandem.discovery.ibverbs.Ibverbs;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the hwloc path, the Data Direct ties libmlx5 reports are placed where the sysfs path places
 * them, by the one reader that does ({@code SysfsReader}); hwloc's tree is kept only when nothing
 * is tied. No library is loaded: hwloc's discovery and libmlx5's ties are given.
 */
@DisplayName("live discovery: libmlx5's Data Direct ties go to the sysfs reader, as without hwloc")
class LiveSourceTest {

  @TempDir Path root;

  private LiveSource source() {
    return new LiveSource("tray", root, new Hwloc(), new Ibverbs());
  }

  /** What hwloc sees on the tray: every NIC at its own PCI address. */
  private static Discovery hwloc(Machine kernelView) {
    return new Discovery(kernelView, "hwloc", List.of());
  }

  @Test
  @DisplayName("ties on a GB300: sysfs places each NIC by its GPU, with a note saying why")
  void tiesGoToSysfs() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    Machine kernel = tray.write(root);
    List<String> notes = new ArrayList<>();

    Discovery d = source().chosen(hwloc(kernel), DataDirectTies.of(tray.dataDirect()), notes);

    assertEquals("sysfs", d.source());
    String gpu = tray.gpuUuid(PciAddress.parse("0009:06:00.0"));
    assertEquals(Locality.PIX, LocalityIndex.of(d.machine()).locality(gpu, "mlx5_0"));
    assertEquals(
        PciAddress.parse("0009:03:00.0"), d.machine().device("mlx5_0").get().hca().dataDirect());
    assertTrue(
        notes.stream().anyMatch(n -> n.startsWith("hwloc's tree does not say which NIC")),
        notes.toString());
  }

  @Test
  @DisplayName("no ties: hwloc's tree is kept, the NICs at their own address")
  void noTiesKeepHwloc() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    Machine kernel = tray.write(root);

    Discovery d = source().chosen(hwloc(kernel), DataDirectTies.of(Map.of()), new ArrayList<>());

    assertEquals("hwloc", d.source());
    assertNull(d.machine().device("mlx5_0").get().hca().dataDirect());
  }
}
