package dev.tandem.deviceplugin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.node.LocalNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("command line: defaults, precedence and errors naming the flag")
class PluginConfigTest {

  @TempDir Path dir;

  /** A k8s-rdma-sriov-dev-plugin file in sriov mode, at its mount path below the temp dir. */
  private Path sriovPluginFile() throws IOException {
    Path file = dir.resolve("k8s-rdma-sriov-dev-plugin/config.json");
    Files.createDirectories(file.getParent());
    return Files.writeString(file, "{\"mode\":\"sriov\",\"pfNetdevices\":[\"eth0\"]}");
  }

  @Test
  @DisplayName(
      "defaults: kubelet dirs, kubelet.sock inside the plugin dir, node name from NODE_NAME")
  void defaults() {
    PluginConfig f = PluginConfig.parse(new String[0], Map.of("NODE_NAME", "gpu-7"));
    assertEquals(Path.of("/var/lib/kubelet/device-plugins"), f.pluginDir());
    assertEquals(Path.of("/var/lib/kubelet/device-plugins/kubelet.sock"), f.kubeletSocket());
    assertEquals(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"), f.podResourcesSocket());
    assertEquals("gpu-7", f.node().nodeName());
    assertEquals(1000, f.lookupTimeoutMs());
    assertEquals(new LocalNode("gpu-7", null, null, Path.of("/"), false), f.node());
    assertEquals("rdma/hca", f.resourceName());
    assertEquals(Duration.ofSeconds(10), f.healthInterval());
    assertEquals(9402, f.opsPort());
    assertEquals("h", PluginConfig.parse(new String[0], Map.of("HOSTNAME", "h")).node().nodeName());
  }

  @Test
  @DisplayName(
      "--plugin-dir moves the default kubelet socket; --flag=value and --flag value both work")
  void values() throws Exception {
    Path xml = Files.writeString(dir.resolve("x.xml"), "<topology/>");
    PluginConfig f =
        PluginConfig.parse(
            new String[] {
              "--plugin-dir=/tmp/dp",
              "--hwloc-xml",
              xml.toString(),
              "--no-kube",
              "--node-name",
              "n1",
              "--pod-resources-socket",
              "/tmp/pr.sock"
            },
            Map.of());
    assertEquals(Path.of("/tmp/dp/kubelet.sock"), f.kubeletSocket());
    assertEquals(xml, f.node().hwlocXml());
    assertTrue(f.noKube());
    assertEquals("n1", f.node().nodeName());
  }

  @Test
  @DisplayName(
      "resourceName and healthCheckSeconds: flag over environment over the JSON file over the default")
  void precedence() throws Exception {
    Path cfg =
        Files.writeString(
            dir.resolve("c.json"),
            "{\"mode\":\"hca\",\"resourceName\":\"file/hca\",\"healthCheckSeconds\":30}");
    String[] file = {"--config", cfg.toString()};
    assertEquals("file/hca", PluginConfig.parse(file, Map.of()).resourceName());
    assertEquals(Duration.ofSeconds(30), PluginConfig.parse(file, Map.of()).healthInterval());
    Map<String, String> env = Map.of("TANDEM_PLUGIN_RESOURCE_NAME", "env/hca");
    assertEquals("env/hca", PluginConfig.parse(file, env).resourceName());
    String[] flag = {"--config", cfg.toString(), "--resource-name", "flag/hca"};
    assertEquals("flag/hca", PluginConfig.parse(flag, env).resourceName());
  }

  @Test
  @DisplayName(
      "a Mellanox plugin's file gives the resource and interval its own keys map to, unless a flag"
          + " says otherwise")
  void mellanoxFiles() throws Exception {
    Path sriov = sriovPluginFile();
    assertEquals(
        "rdma/vhca",
        PluginConfig.parse(new String[] {"--config", sriov.toString()}, Map.of()).resourceName());
    Path shared =
        Files.writeString(
            dir.resolve("shared.json"),
            "{\"periodicUpdateInterval\":30,\"configList\":[{\"resourceName\":\"hca_a\"}]}");
    PluginConfig f = PluginConfig.parse(new String[] {"--config", shared.toString()}, Map.of());
    assertEquals("rdma/hca_a", f.resourceName());
    assertEquals(Duration.ofSeconds(30), f.healthInterval());
    String[] flag = {"--config", shared.toString(), "--resource-name", "flag/hca"};
    assertEquals("flag/hca", PluginConfig.parse(flag, Map.of()).resourceName());
  }

  @Test
  @DisplayName(
      "without --config, the drop-in file is read when it exists (its resource name too); --config"
          + " wins; an absent drop-in file or off reads none")
  void dropInFile() throws Exception {
    Path dropIn = sriovPluginFile();
    Map<String, String> env = Map.of("TANDEM_PLUGIN_DROP_IN_CONFIG", dropIn.toString());
    PluginConfig read = PluginConfig.parse(new String[0], env);
    assertEquals(dropIn, read.configFile());
    assertEquals(dropIn, read.dropInConfig());
    assertEquals("rdma/vhca", read.resourceName());
    Path own = Files.writeString(dir.resolve("own.json"), "{\"mode\":\"hca\"}");
    PluginConfig named = PluginConfig.parse(new String[] {"--config", own.toString()}, env);
    assertEquals(own, named.configFile());
    assertEquals("rdma/hca", named.resourceName());
    String[] absent = {"--drop-in-config", dir.resolve("absent/config.json").toString()};
    assertNull(PluginConfig.parse(absent, Map.of()).configFile());
    PluginConfig off = PluginConfig.parse(new String[] {"--drop-in-config", "off"}, env);
    assertNull(off.configFile());
    assertNull(off.dropInConfig());
    assertEquals(
        Path.of("/k8s-rdma-sriov-dev-plugin/config.json"),
        PluginConfig.parse(new String[0], Map.of()).dropInConfig());
  }

  @Test
  @DisplayName(
      "an unknown flag, a missing value, a bad number or two topology files is an error naming the flag")
  void errors() throws Exception {
    assertEquals(
        "unknown flag '--plugin-directory' (see --help)",
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--plugin-directory", "/x"}, Map.of()))
            .getMessage());
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--config"}, Map.of()))
            .getMessage()
            .contains("--config needs a value"));
    assertEquals(
        "--lookup-timeout-ms (TANDEM_PLUGIN_LOOKUP_TIMEOUT_MS): 'soon' is not a whole number",
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--lookup-timeout-ms", "soon"}, Map.of()))
            .getMessage());
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--resource-name", "hca"}, Map.of()))
            .getMessage()
            .startsWith("--resource-name (TANDEM_PLUGIN_RESOURCE_NAME, file key resourceName):"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    PluginConfig.parse(
                        new String[] {"--hwloc-xml", "a.xml"}, Map.of("TANDEM_NCCL_TOPO", "b")))
            .getMessage()
            .endsWith("(got --hwloc-xml and --nccl-topo)"));
    Path bad = Files.writeString(dir.resolve("bad.json"), "{\"mode\":\"hca\",\"slots\":4}");
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--config", bad.toString()}, Map.of()))
            .getMessage()
            .contains(bad + ": unknown key slots"));
  }

  @Test
  @DisplayName(
      "the node settings as the agent checks them: files and directories must exist, the node name"
          + " is a DNS subdomain, --sysfs-only reads sysfs alone; each error names the flag")
  void nodeSettings() throws Exception {
    assertEquals(
        "--hwloc-xml (TANDEM_HWLOC_XML): '/nonexistent.xml' is not a readable file",
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    PluginConfig.parse(new String[] {"--hwloc-xml", "/nonexistent.xml"}, Map.of()))
            .getMessage());
    assertEquals(
        "--sysfs-root (TANDEM_SYSFS_ROOT): '/nonexistent' is not a directory (from the"
            + " environment)",
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    PluginConfig.parse(new String[0], Map.of("TANDEM_SYSFS_ROOT", "/nonexistent")))
            .getMessage());
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> PluginConfig.parse(new String[] {"--node-name", "Node_1"}, Map.of()))
            .getMessage()
            .startsWith("--node-name (NODE_NAME): 'Node_1' is not a valid node name"));
    PluginConfig sysfs =
        PluginConfig.parse(
            new String[] {"--sysfs-root", dir.toString(), "--node-name", "n1"},
            Map.of("TANDEM_SYSFS_ONLY", "true"));
    assertEquals(new LocalNode("n1", null, null, dir, true), sysfs.node());
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    PluginConfig.parse(new String[] {"--sysfs-only", "--nccl-topo", "b"}, Map.of()))
            .getMessage()
            .endsWith("(got --nccl-topo and --sysfs-only)"));
  }

  @Test
  @DisplayName("docs/configuration.md carries exactly the table the declarations render")
  void documented() throws Exception {
    String doc = Files.readString(Path.of("../docs/configuration.md"));
    String table = PluginSettings.SETTINGS.markdownTable();
    assertTrue(
        doc.contains("\n\n" + table + "\n"),
        "docs/configuration.md, device-plugin, should carry exactly this table:\n" + table);
  }
}
