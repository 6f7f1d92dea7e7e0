package dev.tandem.extender.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.NodeClassDefault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "--node-class-defaults: a list in the file, YAML/JSON text in a flag; errors name the entry")
class NodeClassDefaultsConfigTest {

  private static ExtenderConfig load(String... args) {
    return ExtenderConfig.load(List.of(args), Map.of());
  }

  @Test
  @DisplayName("none by default")
  void noneByDefault() {
    assertEquals(List.of(), load().nodeClassDefaults());
  }

  @Test
  @DisplayName("the config file's list, in order; mode optional")
  void fromFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("extender.yaml");
    Files.writeString(
        file,
        """
        defaultMode: preferred
        nodeClassDefaults:
          - nodeSelector:
              nvidia.com/gpu.product: NVIDIA-GB200
            alignment: numa
          - nodeSelector: {node.kubernetes.io/instance-type: Standard_ND128isr_GB300_v6, tier: 2}
            alignment: numa
            mode: required
        """);
    ExtenderConfig c = load("--config", file.toString());
    assertEquals(
        List.of(
            new NodeClassDefault(
                Map.of("nvidia.com/gpu.product", "NVIDIA-GB200"), Alignment.NUMA, null),
            new NodeClassDefault(
                Map.of(
                    "node.kubernetes.io/instance-type", "Standard_ND128isr_GB300_v6", "tier", "2"),
                Alignment.NUMA,
                AlignmentMode.REQUIRED)),
        c.nodeClassDefaults());
    assertEquals(
        AlignmentMode.PREFERRED,
        c.nodeClassDefaults().get(0).policy(c.defaultPolicy()).mode(),
        "an entry without a mode takes the cluster-wide one");
  }

  @Test
  @DisplayName("the flag takes JSON")
  void fromFlag() {
    ExtenderConfig c =
        load("--node-class-defaults", "[{\"nodeSelector\":{\"a\":\"b\"},\"alignment\":\"none\"}]");
    assertEquals(Alignment.NONE, c.nodeClassDefaults().get(0).alignment());
    assertNull(c.nodeClassDefaults().get(0).mode());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "[{nodeSelector: {a: b}, alignment: numa}, {nodeSelector: {c: d}, alignment: numaa}]"
            + "|entry 2: alignment: tandem.dev/alignment: unknown value 'numaa'",
        "[{nodeSelector: {}, alignment: numa}]|entry 1: nodeSelector must map at least one node label",
        "[{alignment: numa}]|entry 1: nodeSelector must map at least one node label",
        "[{nodeSelector: {a: b}}]|entry 1: alignment is missing",
        "[{nodeSelector: {a: b}, alignment: numa, mode: sometimes}]|entry 1: mode: tandem.dev/alignment-mode: unknown value 'sometimes'",
        "[{nodeSelector: {a: b}, alignment: numa, nodeSelctor: {}}]|entry 1: unknown field nodeSelctor",
        "[{nodeSelector: {a: [b]}, alignment: numa}]|entry 1: nodeSelector.a is not a label value",
        "{nodeSelector: {a: b}}|is not a list",
        "[numa]|entry 1: is not a map"
      })
  @DisplayName("a bad entry stops the start, naming the setting, the entry and the field")
  void badEntries(String text, String message) {
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class, () -> load("--node-class-defaults", text));
    assertTrue(e.getMessage().startsWith("--node-class-defaults"), e.getMessage());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
