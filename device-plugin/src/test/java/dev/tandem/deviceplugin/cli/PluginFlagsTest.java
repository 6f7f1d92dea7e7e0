package dev.tandem.deviceplugin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("command line: defaults and errors naming the flag")
class PluginFlagsTest {

  @Test
  @DisplayName(
      "defaults: kubelet dirs, kubelet.sock inside the plugin dir, node name from NODE_NAME")
  void defaults() {
    PluginFlags f = PluginFlags.parse(new String[0], Map.of("NODE_NAME", "gpu-7"));
    assertEquals(Path.of("/var/lib/kubelet/device-plugins"), f.pluginDir());
    assertEquals(Path.of("/var/lib/kubelet/device-plugins/kubelet.sock"), f.kubeletSocket());
    assertEquals(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"), f.podResourcesSocket());
    assertEquals("gpu-7", f.nodeName());
    assertEquals(1000, f.lookupTimeoutMs());
  }

  @Test
  @DisplayName(
      "--plugin-dir moves the default kubelet socket; --flag=value and --flag value both work")
  void values() {
    PluginFlags f =
        PluginFlags.parse(
            new String[] {
              "--plugin-dir=/tmp/dp",
              "--hwloc-xml",
              "x.xml",
              "--no-kube",
              "--node-name",
              "n1",
              "--config",
              "c.json",
              "--pod-resources-socket",
              "/tmp/pr.sock"
            },
            Map.of());
    assertEquals(Path.of("/tmp/dp/kubelet.sock"), f.kubeletSocket());
    assertEquals(Path.of("x.xml"), f.hwlocXml());
    assertTrue(f.noKube());
    assertEquals("n1", f.nodeName());
  }

  @Test
  @DisplayName("an unknown flag, a missing value or a bad number is a usage error naming the flag")
  void errors() {
    assertEquals(
        "unknown flag --plugin-directory (see --help)",
        assertThrows(
                UsageException.class,
                () -> PluginFlags.parse(new String[] {"--plugin-directory", "/x"}, Map.of()))
            .getMessage());
    assertTrue(
        assertThrows(
                UsageException.class, () -> PluginFlags.parse(new String[] {"--config"}, Map.of()))
            .getMessage()
            .contains("--config needs a value"));
    assertTrue(
        assertThrows(
                UsageException.class,
                () -> PluginFlags.parse(new String[] {"--lookup-timeout-ms", "soon"}, Map.of()))
            .getMessage()
            .contains("soon"));
  }
}
