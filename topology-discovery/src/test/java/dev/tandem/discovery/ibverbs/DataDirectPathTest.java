package dev.tandem.discovery.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.model.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** What libmlx5's answer means, for the answers a GB300 tray's devices give. */
@DisplayName("libmlx5: mlx5dv_get_data_direct_sysfs_path answers")
class DataDirectPathTest {

  private final List<String> notes = new ArrayList<>();

  @Test
  @DisplayName("0 and a sysfs path: the function at its end")
  void pathGivesTheFunction() {
    PciAddress dd = GraceTray.GB300_CX8.dataDirect().get("mlx5_0");

    assertEquals(
        dd, DataDirectPath.of(answering(0, GraceTray.sysfsPath(dd)), "mlx5_0", null, notes));
    assertTrue(notes.isEmpty(), notes.toString());
  }

  @Test
  @DisplayName("ENODEV: no Data Direct function, no note")
  void enodevIsNone() {
    assertNull(DataDirectPath.of(answering(DataDirectPath.ENODEV, ""), "mlx5_0", null, notes));
    assertTrue(notes.isEmpty(), notes.toString());
  }

  @Test
  @DisplayName("another errno or a path without a PCI address: a note, no function")
  void failuresAreNotes() {
    assertNull(DataDirectPath.of(answering(28, ""), "mlx5_1", null, notes));
    assertNull(DataDirectPath.of(answering(0, "/devices/virtual/dd"), "mlx5_2", null, notes));
    assertEquals(
        List.of(
            "ibverbs: mlx5dv_get_data_direct_sysfs_path for mlx5_1 failed with errno 28",
            "ibverbs: mlx5dv_get_data_direct_sysfs_path gives mlx5_2 the path"
                + " /sys/devices/virtual/dd, which does not end in a PCI address: mlx5_2 stays at"
                + " its own PCI address"),
        notes);
  }

  private static DataDirectPath answering(int rc, String path) {
    return (context, buffer, length) -> {
      byte[] bytes = path.getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(bytes, 0, buffer, 0, bytes.length);
      return rc;
    };
  }
}
