package dev.tandem.api.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one application of the rail rule every node daemon makes: file, labels, rule, notes. */
class NodeRailsTest {

  private static final Map<String, String> LABELS = Map.of("tandem.dev/model", "m1");
  private static final Machine MACHINE = TestMachines.twoSwitchesAndLoneHca("gpu-1");

  @Test
  @DisplayName("no mapping: rails by PCI order, the Node's labels never read")
  void pciOrderWithoutMapping() {
    Supplier<Map<String, String>> unread =
        () -> {
          throw new AssertionError("labels are read only for a mapping");
        };
    Rails.Assigned a = new NodeRails(null, unread).apply(MACHINE);
    assertEquals(Map.of("mlx5_0", 0, "mlx5_2", 1), railed(a.machine()));
    assertEquals(Rails.PCI_ORDER, a.source());
  }

  @Test
  @DisplayName(
      "mapping chosen by the node's labels: HCAs by netdev, PCI address and ibverbs name; a missing"
          + " HCA is a note naming the node, the HCA and the file")
  void mappingFromFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("rails.json");
    Files.writeString(
        file,
        """
        [{"nodeSelector": {"tandem.dev/model": "other"}, "rails": {"mlx5_0": 9}},
         {"nodeSelector": {"tandem.dev/model": "m1"},
          "rails": {"ib1": 0, "%s": 1, "mlx5_1": 2, "mlx5_7": 3}}]
        """
            .formatted(MACHINE.device("mlx5_0").orElseThrow().address()));
    Rails.Assigned a = new NodeRails(file, () -> LABELS).apply(MACHINE);
    Map<String, Integer> rails = railed(a.machine());
    assertEquals(0, rails.get("mlx5_2"), "by netdev ib1");
    assertEquals(1, rails.get("mlx5_0"), "by PCI address");
    assertEquals(2, rails.get("mlx5_1"), "by ibverbs name, though under no GPU's switch");
    String note = a.notes().stream().filter(n -> n.contains("mlx5_7")).findFirst().orElseThrow();
    assertTrue(note.contains("node gpu-1") && note.contains("--rail-map " + file), note);
  }

  @Test
  @DisplayName("a mapping no entry of which selects the node: a note, and rails by PCI order")
  void noEntrySelects(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("rails.json"), "[]");
    Rails.Assigned a = new NodeRails(file, () -> LABELS).apply(MACHINE);
    assertEquals(Map.of("mlx5_0", 0, "mlx5_2", 1), railed(a.machine()));
    assertEquals(
        "node gpu-1: no entry of --rail-map " + file + " selects its labels; rails by PCI order",
        String.join("\n", a.notes()));
  }

  @Test
  @DisplayName("a daemon that sees no labels takes the first entry without a selector")
  void noLabels(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("rails.json"),
            """
            [{"nodeSelector": {"tandem.dev/model": "m1"}, "rails": {"mlx5_0": 5}},
             {"rails": {"mlx5_2": 4}}]
            """);
    assertEquals(
        Map.of("mlx5_2", 4), railed(new NodeRails(file, Map::of).apply(MACHINE).machine()));
  }

  @Test
  @DisplayName(
      "a file that is not a mapping, or cannot be read, is refused naming setting and file")
  void badFile(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("rails.json"), "[{\"rails\": {\"mlx5_0\": -2}}]");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new NodeRails(file, () -> LABELS).apply(MACHINE));
    assertEquals(
        "--rail-map " + file + ": entry 0.rails.mlx5_0 is -2, not a rail number (0 or more)",
        e.getMessage());
    Path gone = dir.resolve("gone.json");
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new NodeRails(gone, () -> LABELS).apply(MACHINE));
    assertTrue(
        e.getMessage().startsWith("--rail-map " + gone + ": cannot be read"), e.getMessage());
  }

  /** Rail by ibverbs name of the HCAs that have one. */
  private static Map<String, Integer> railed(Machine m) {
    Map<String, Integer> out = new LinkedHashMap<>();
    m.hcas().stream()
        .filter(h -> h.hca().rail() != null)
        .forEach(h -> out.put(h.hca().ibDevice(), h.hca().rail()));
    return out;
  }
}
