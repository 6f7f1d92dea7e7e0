package dev.tandem.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rails on trees read by the sysfs source from fake sysfs trees of real machines. */
class RailedSourceTest {

  private static final Map<String, String> LABELS = Map.of("tandem.dev/model", "m1");

  @Test
  @DisplayName("no mapping: a DGX A100's GPU-side NICs by PCI order, the storage NIC on no rail")
  void pciOrderWithoutMapping(@TempDir Path root) throws Exception {
    FakeSysfs.write(root, RealMachines.dgxA100());
    Supplier<Map<String, String>> unread =
        () -> {
          throw new AssertionError("labels are read only for a mapping");
        };
    Map<String, Integer> rails = rails(new RailedSource(sysfs(root), null, unread).discover());
    for (int i = 0; i < 8; i++) {
      assertEquals(i, rails.get("mlx5_" + i), "mlx5_" + i);
    }
    assertNull(rails.get("mlx5_8"));
    assertNull(rails.get("mlx5_9"));
  }

  @Test
  @DisplayName(
      "mapping chosen by the node's labels: HCAs by netdev, PCI address and ibverbs name; a missing"
          + " HCA is a note naming the node, the HCA and the file")
  void mappingFromFile(@TempDir Path root, @TempDir Path dir) throws Exception {
    Machine machine = TestMachines.twoSwitchesAndLoneHca("gpu-1");
    FakeSysfs.write(root, machine);
    Path file = dir.resolve("rails.json");
    Files.writeString(
        file,
        """
        [{"nodeSelector": {"tandem.dev/model": "other"}, "rails": {"mlx5_0": 9}},
         {"nodeSelector": {"tandem.dev/model": "m1"},
          "rails": {"ib1": 0, "%s": 1, "mlx5_1": 2, "mlx5_7": 3}}]
        """
            .formatted(machine.device("mlx5_0").orElseThrow().address()));
    Discovery d = new RailedSource(sysfs(root), file, () -> LABELS).discover();
    Map<String, Integer> rails = rails(d);
    assertEquals(0, rails.get("mlx5_2"), "by netdev ib1");
    assertEquals(1, rails.get("mlx5_0"), "by PCI address");
    assertEquals(2, rails.get("mlx5_1"), "by ibverbs name, though under no GPU's switch");
    String note =
        d.notes().stream().filter(n -> n.contains("mlx5_7")).findFirst().orElseThrow().toString();
    assertTrue(note.contains("node gpu-1") && note.contains("--rail-map " + file), note);
    assertTrue(d.warnings().contains(note), "the operator should act on it");
  }

  @Test
  @DisplayName("a mapping no entry of which selects the node: a note, and rails by PCI order")
  void noEntrySelects(@TempDir Path root, @TempDir Path dir) throws Exception {
    FakeSysfs.write(root, TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    Path file = Files.writeString(dir.resolve("rails.json"), "[]");
    Discovery d = new RailedSource(sysfs(root), file, () -> LABELS).discover();
    assertEquals(0, rails(d).get("mlx5_0"));
    assertEquals(1, rails(d).get("mlx5_2"));
    assertTrue(
        d.notes().stream().anyMatch(n -> n.contains("no entry of --rail-map " + file)),
        d.notes().toString());
  }

  @Test
  @DisplayName("a mapping file that is not valid fails the discovery naming the setting and file")
  void badFile(@TempDir Path root, @TempDir Path dir) throws Exception {
    FakeSysfs.write(root, TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    Path file = Files.writeString(dir.resolve("rails.json"), "[{\"rails\": {\"mlx5_0\": -2}}]");
    DiscoveryException e =
        assertThrows(
            DiscoveryException.class,
            () -> new RailedSource(sysfs(root), file, () -> LABELS).discover());
    assertEquals(
        "--rail-map " + file + ": entry 0.rails.mlx5_0 is -2, not a rail number (0 or more)",
        e.getMessage());
  }

  private static TopologySource sysfs(Path root) {
    return TopologySources.create(DiscoveryOptions.sysfs("gpu-1", root));
  }

  private static Map<String, Integer> rails(Discovery d) {
    Machine m = d.machine();
    Map<String, Integer> out = new LinkedHashMap<>();
    m.hcas().forEach(h -> out.put(h.hca().ibDevice(), h.hca().rail()));
    return out;
  }
}
