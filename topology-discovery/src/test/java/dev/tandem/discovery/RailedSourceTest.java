package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node daemon's rail rule on trees read by the sysfs source from fake sysfs trees. */
class RailedSourceTest {

  @Test
  @DisplayName("rails by PCI order: a DGX A100's GPU-side NICs 0-7, the storage NIC on no rail")
  void pciOrder(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, RealMachines.dgxA100());
    Map<String, Integer> rails =
        rails(TopologySources.create(sysfs(root), Rails::byPciOrder).discover());
    for (int i = 0; i < 8; i++) {
      assertEquals(i, rails.get("mlx5_" + i), "mlx5_" + i);
    }
    assertNull(rails.get("mlx5_8"));
    assertNull(rails.get("mlx5_9"));
  }

  @Test
  @DisplayName(
      "without a rule the HCAs carry no rail (commands and tests read machines as they are)")
  void noRule(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, RealMachines.dgxA100());
    Map<String, Integer> rails = rails(TopologySources.create(sysfs(root)).discover());
    assertNull(rails.get("mlx5_0"));
  }

  @Test
  @DisplayName("the rule's notes are the discovery's notes and warnings")
  void notes(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    Discovery d =
        TopologySources.create(
                sysfs(root), m -> Rails.fromMapping(m, Map.of("mlx5_7", 3), "--rail-map f"))
            .discover();
    String note = d.notes().stream().filter(n -> n.contains("mlx5_7")).findFirst().orElseThrow();
    assertTrue(note.contains("node gpu-1") && note.contains("--rail-map f"), note);
    assertTrue(d.warnings().contains(note), "the operator should act on it");
  }

  @Test
  @DisplayName("a rule that fails fails the discovery with its message")
  void failingRule(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    DiscoveryException e =
        assertThrows(
            DiscoveryException.class,
            () ->
                TopologySources.create(
                        sysfs(root),
                        m -> {
                          throw new IllegalArgumentException("--rail-map f: entry 0 is bad");
                        })
                    .discover());
    assertEquals("--rail-map f: entry 0 is bad", e.getMessage());
  }

  private static DiscoveryOptions sysfs(Path root) {
    return DiscoveryOptions.sysfs("gpu-1", root);
  }

  private static Map<String, Integer> rails(Discovery d) {
    Machine m = d.machine();
    Map<String, Integer> out = new LinkedHashMap<>();
    m.hcas().forEach(h -> out.put(h.hca().ibDevice(), h.hca().rail()));
    return out;
  }
}
