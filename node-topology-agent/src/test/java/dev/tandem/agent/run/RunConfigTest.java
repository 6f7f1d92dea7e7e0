package dev.tandem.agent.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.node.NodeSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RunConfigTest {

  @TempDir Path dir;

  private static RunConfig config(Map<String, String> env, String... args) {
    return RunConfig.parse(List.of(args), env);
  }

  @Test
  @DisplayName("--nvml-library defaults to the name the one NVML binding loads")
  void nvmlLibraryDefault() {
    assertEquals(Nvml.LIBRARY, NodeSettings.DEFAULT_NVML_LIBRARY);
    assertEquals(Nvml.LIBRARY, config(Map.of("NODE_NAME", "gpu-1")).nvmlLibrary());
  }

  @Test
  @DisplayName(
      "defaults: live discovery, kubelet socket, 60 s resync, 10 s poll, port 8081, default kubeconfig")
  void defaults() {
    RunConfig c = config(Map.of("NODE_NAME", "gpu-1"));
    assertEquals("gpu-1", c.nodeName());
    assertEquals(Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"), c.podResourcesSocket());
    assertEquals(Duration.ofSeconds(60), c.resync());
    assertEquals(Duration.ofSeconds(10), c.poll());
    assertEquals(8081, c.port());
    assertNull(c.kubeconfig());
    assertEquals(DiscoveryOptions.live("gpu-1"), c.discovery());
    assertEquals(ResourceNames.DEFAULT, c.resources());
  }

  @Test
  @DisplayName(
      "resource names: flag or variable; not an extended resource, or both the same, is refused naming them")
  void resourceNames() {
    RunConfig c =
        config(
            Map.of("NODE_NAME", "gpu-1", "TANDEM_GPU_RESOURCE_NAME", "example.com/gpu"),
            "--hca-resource-name",
            "rdma/shared_hca");
    assertEquals(new ResourceNames("example.com/gpu", "rdma/shared_hca"), c.resources());
    String bad =
        assertThrows(
                InvalidConfigurationException.class,
                () -> config(Map.of("NODE_NAME", "gpu-1"), "--hca-resource-name", "hca"))
            .getMessage();
    assertTrue(bad.contains("--hca-resource-name") && bad.contains("'hca'"), bad);
    String same =
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    config(Map.of("NODE_NAME", "gpu-1"), "--hca-resource-name", ResourceNames.GPU))
            .getMessage();
    assertTrue(same.endsWith("are both nvidia.com/gpu; they must differ"), same);
  }

  @Test
  @DisplayName("flags win over the environment; unrelated variables are ignored")
  void flagsOverEnvironment() throws Exception {
    Path xml = Files.writeString(dir.resolve("t.xml"), "<topology/>");
    RunConfig c =
        config(
            Map.of("NODE_NAME", "from-env", "TANDEM_POLL_SECONDS", "5", "PATH", "/bin"),
            "--node-name",
            "from-flag",
            "--resync=120",
            "--hwloc-xml",
            xml.toString());
    assertEquals("from-flag", c.nodeName());
    assertEquals(Duration.ofSeconds(120), c.resync());
    assertEquals(Duration.ofSeconds(5), c.poll());
    assertEquals(DiscoveryOptions.hwlocXml("from-flag", xml), c.discovery());
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({
    "--resync, abc, --resync (TANDEM_RESYNC_SECONDS): 'abc' is not a whole number",
    "--poll, 0, --poll (TANDEM_POLL_SECONDS): '0' is out of range 1..3600",
    "--port, 70000, --port (TANDEM_PORT): '70000' is out of range 0..65535",
    "--node-name, GPU_1, --node-name (NODE_NAME): 'GPU_1' is not a valid node name",
    "--hwloc-xml, /nonexistent.xml, --hwloc-xml (TANDEM_HWLOC_XML): '/nonexistent.xml' is not a readable file",
    "--sysfs-root, /nonexistent, --sysfs-root (TANDEM_SYSFS_ROOT): '/nonexistent' is not a directory"
  })
  @DisplayName("a bad value is rejected naming the flag, the variable and the value")
  void badValues(String flag, String value, String message) {
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class,
            () -> config(Map.of("NODE_NAME", "gpu-1"), flag, value));
    assertTrue(e.getMessage().startsWith(message), e.getMessage());
  }

  @Test
  @DisplayName(
      "--sysfs-root is the host root: with the libraries by default, sysfs only with --sysfs-only (the old --sysfs-root)")
  void sysfsRoot() {
    Path root = dir;
    assertEquals(
        new DiscoveryOptions("n", null, root, null, true),
        config(Map.of("NODE_NAME", "n"), "--sysfs-root", root.toString()).discovery());
    assertEquals(
        DiscoveryOptions.sysfs("n", root),
        config(
                Map.of("NODE_NAME", "n", "TANDEM_SYSFS_ONLY", "true"),
                "--sysfs-root",
                root.toString())
            .discovery());
  }

  @Test
  @DisplayName("the node name is required, two discovery sources are refused naming both")
  void required() {
    assertTrue(
        assertThrows(InvalidConfigurationException.class, () -> config(Map.of()))
            .getMessage()
            .contains("NODE_NAME"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    config(
                        Map.of("NODE_NAME", "n"), "--sysfs-only", "--nccl-topo", "/etc/hostname"))
            .getMessage()
            .matches("give at most one of .*\\(got --nccl-topo and --sysfs-only\\)"));
  }

  @Test
  @DisplayName(
      "run --help exits 0 and lists every flag with its variable; an unknown flag exits 2; a bad value exits 2")
  void exitCodes() {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(text));
      System.setErr(new PrintStream(text));
      assertEquals(0, RunCommand.run(new String[] {"--help"}, Map.of()));
      for (Setting<?> s : RunSettings.SETTINGS.all()) {
        assertTrue(
            text.toString().contains(s.flag()) && text.toString().contains(s.env()), s.flag());
      }
      assertEquals(2, RunCommand.run(new String[] {"--frobnicate"}, Map.of("NODE_NAME", "n")));
      assertTrue(text.toString().contains("unknown flag '--frobnicate'"));
      assertEquals(2, RunCommand.run(new String[] {"--poll", "x"}, Map.of("NODE_NAME", "n")));
      assertEquals(2, RunCommand.run(new String[] {"--poll"}, Map.of("NODE_NAME", "n")));
      assertEquals(2, RunCommand.run(new String[] {}, Map.of()));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }
}
