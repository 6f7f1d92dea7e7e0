package dev.tandem.kit.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "the node settings: one declaration, one validation, one reading for every node daemon")
class NodeSettingsTest {

  private static final List<Setting<?>> SHARED =
      List.of(
          NodeSettings.HWLOC_XML,
          NodeSettings.NCCL_TOPO,
          NodeSettings.SYSFS_ROOT,
          NodeSettings.SYSFS_ONLY,
          NodeSettings.KUBECONFIG,
          NodeSettings.POD_RESOURCES_SOCKET);

  /** A daemon that finds its name itself when none is given (dump, the device plugin). */
  private static final Settings NAME_OPTIONAL = table(NodeSettings.NODE_NAME);

  /** A daemon that publishes under its node's name (the agent's run). */
  private static final Settings NAME_REQUIRED = table(NodeSettings.NODE_NAME.asRequired());

  @TempDir Path dir;

  private static Settings table(Setting<String> nodeName) {
    List<Setting<?>> all = new ArrayList<>(List.of(nodeName));
    all.addAll(SHARED);
    return Settings.of("usage: node-daemon [flags]\n", all).rules(NodeSettings.ONE_SOURCE);
  }

  private static Resolved resolve(Settings table, Map<String, String> env, String... args) {
    return table.resolve(List.of(args), env);
  }

  private static String error(Settings table, Map<String, String> env, String... args) {
    return assertThrows(InvalidConfigurationException.class, () -> resolve(table, env, args))
        .getMessage();
  }

  @Test
  @DisplayName(
      "defaults: this machine through the libraries under /, the kubelet's PodResources socket, no kubeconfig")
  void defaults() {
    Resolved v = resolve(NAME_OPTIONAL, Map.of("NODE_NAME", "gpu-1"));
    assertEquals(
        new LocalNode("gpu-1", null, null, Path.of("/"), false),
        NodeSettings.localNode(v, Map.of()));
    assertEquals(
        Path.of(NodeSettings.DEFAULT_POD_RESOURCES_SOCKET),
        v.get(NodeSettings.POD_RESOURCES_SOCKET));
    assertEquals(
        Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"),
        v.get(NodeSettings.POD_RESOURCES_SOCKET));
    assertNull(v.get(NodeSettings.KUBECONFIG));
  }

  @Test
  @DisplayName(
      "the node name: HOSTNAME, else the host name, where it may be missing; required where the table says so, read the same way")
  void nodeName() {
    assertEquals(
        "from-hostname",
        NodeSettings.localNode(
                resolve(NAME_OPTIONAL, Map.of()), Map.of("HOSTNAME", "from-hostname"))
            .nodeName());
    assertNotNull(NodeSettings.localNode(resolve(NAME_OPTIONAL, Map.of()), Map.of()).nodeName());
    assertEquals(
        "--node-name (NODE_NAME) is required: " + NodeSettings.NODE_NAME.help(),
        error(NAME_REQUIRED, Map.of("HOSTNAME", "h")));
    assertEquals(
        "gpu-2",
        NodeSettings.localNode(resolve(NAME_REQUIRED, Map.of(), "--node-name", "gpu-2"), Map.of())
            .nodeName());
    assertTrue(NAME_REQUIRED.usage().contains("(required)"), NAME_REQUIRED.usage());
    assertTrue(NAME_OPTIONAL.usage().contains("(default $HOSTNAME, else the host name)"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "--node-name, GPU_1, --node-name (NODE_NAME): 'GPU_1' is not a valid node name (lowercase DNS subdomain)",
    "--hwloc-xml, /nonexistent.xml, --hwloc-xml (TANDEM_HWLOC_XML): '/nonexistent.xml' is not a readable file",
    "--nccl-topo, /nonexistent.xml, --nccl-topo (TANDEM_NCCL_TOPO): '/nonexistent.xml' is not a readable file",
    "--sysfs-root, /nonexistent, --sysfs-root (TANDEM_SYSFS_ROOT): '/nonexistent' is not a directory",
    "--kubeconfig, /nonexistent/config, --kubeconfig (KUBECONFIG): '/nonexistent/config' is not a readable file"
  })
  @DisplayName("a bad value is refused naming the flag, the variable and the value, in every table")
  void badValues(String flag, String value, String message) {
    for (Settings table : List.of(NAME_OPTIONAL, NAME_REQUIRED)) {
      assertEquals(message, error(table, Map.of("NODE_NAME", "n"), flag, value));
    }
  }

  @Test
  @DisplayName(
      "one way of reading the machine: a file, a captured tree alone, or this machine; two are refused naming both")
  void sources() throws Exception {
    Path xml = Files.writeString(dir.resolve("t.xml"), "<topology/>");
    Map<String, String> env = Map.of("NODE_NAME", "n");
    assertEquals(
        new LocalNode("n", xml, null, Path.of("/"), false),
        NodeSettings.localNode(
            resolve(NAME_OPTIONAL, env, "--hwloc-xml", xml.toString()), Map.of()));
    assertEquals(
        new LocalNode("n", null, xml, dir, false),
        NodeSettings.localNode(
            resolve(
                NAME_OPTIONAL, env, "--nccl-topo", xml.toString(), "--sysfs-root", dir.toString()),
            Map.of()));
    assertEquals(
        new LocalNode("n", null, null, dir, true),
        NodeSettings.localNode(
            resolve(
                NAME_OPTIONAL,
                Map.of("NODE_NAME", "n", "TANDEM_SYSFS_ONLY", "true"),
                "--sysfs-root",
                dir.toString()),
            Map.of()));
    assertTrue(
        error(NAME_OPTIONAL, env, "--sysfs-only", "--hwloc-xml", xml.toString())
            .endsWith("(got --hwloc-xml and --sysfs-only)"));
  }

  @Test
  @DisplayName("a translation gets the values in the record's order")
  void translation() {
    LocalNode node = new LocalNode("n", Path.of("x.xml"), Path.of("nccl.xml"), Path.of("/r"), true);
    assertEquals(
        List.of("n", Path.of("x.xml"), Path.of("nccl.xml"), Path.of("/r"), true),
        node.into((name, xml, nccl, root, only) -> List.of(name, xml, nccl, root, only)));
  }
}
