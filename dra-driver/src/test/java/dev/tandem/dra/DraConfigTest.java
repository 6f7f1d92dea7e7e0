package dev.tandem.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.slices.HcaShape;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.node.LocalNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("the DRA driver's settings: defaults, precedence and errors naming the flag")
class DraConfigTest {

  @TempDir Path dir;

  static final Map<String, String> NODE = Map.of("NODE_NAME", "n1");

  static String error(Map<String, String> env, String... args) {
    return assertThrows(InvalidConfigurationException.class, () -> DraConfig.parse(args, env))
        .getMessage();
  }

  @Test
  @DisplayName("defaults: driver tandem.dev, the kubelet's directories, HCA shape, HCAs only")
  void defaults() {
    DraConfig c = DraConfig.parse(new String[0], NODE);
    assertEquals("tandem.dev", c.driver());
    assertEquals(Path.of("/var/lib/kubelet/plugins_registry"), c.pluginRegistryDir());
    assertEquals(Path.of("/var/lib/kubelet/plugins/tandem.dev"), c.pluginDir());
    assertEquals(Path.of("/var/run/cdi"), c.cdiDir());
    assertEquals(HcaShape.HCA, c.mode());
    assertEquals(1000, c.sharesPerHca());
    assertEquals(Path.of("/var/run/k8s.cni.cncf.io/devinfo/dp"), c.deviceInfoDir());
    assertFalse(c.joint());
    assertFalse(c.poolSpec().gpus());
    assertEquals(9403, c.opsPort());
    assertEquals(new LocalNode("n1", null, null, Path.of("/"), false), c.node());
    assertEquals(
        Path.of("/var/lib/kubelet/plugins_registry/tandem.dev-reg.sock"), c.registrationSocket());
    assertEquals(Path.of("/var/lib/kubelet/plugins/tandem.dev/dra.sock"), c.draSocket());
    assertEquals(Path.of("/var/lib/kubelet/plugins/tandem.dev/checkpoint.json"), c.checkpoint());
  }

  @Test
  @DisplayName("--driver-name moves the default plugin dir and names the registration socket")
  void driverName() {
    DraConfig c = DraConfig.parse(new String[] {"--driver-name", "rdma.example.com"}, NODE);
    assertEquals(Path.of("/var/lib/kubelet/plugins/rdma.example.com"), c.pluginDir());
    assertEquals(
        Path.of("/var/lib/kubelet/plugins_registry/rdma.example.com-reg.sock"),
        c.registrationSocket());
    assertEquals("rdma.example.com", c.poolSpec().driver());
  }

  @Test
  @DisplayName("flag over environment over default; --joint turns GPUs on")
  void precedence() {
    Map<String, String> env =
        Map.of(
            "NODE_NAME", "n1",
            "TANDEM_DRA_DRIVER_NAME", "env.example.com",
            "TANDEM_DRA_OPS_PORT", "9000",
            "TANDEM_DRA_JOINT", "true");
    DraConfig fromEnv = DraConfig.parse(new String[0], env);
    assertEquals("env.example.com", fromEnv.driver());
    assertEquals(9000, fromEnv.opsPort());
    assertTrue(fromEnv.poolSpec().gpus());
    DraConfig fromFlag =
        DraConfig.parse(
            new String[] {"--driver-name=flag.example.com", "--ops-port", "0", "--node-name=n2"},
            env);
    assertEquals("flag.example.com", fromFlag.driver());
    assertEquals(0, fromFlag.opsPort());
    assertEquals("n2", fromFlag.node().nodeName());
  }

  @Test
  @DisplayName("bad values name the flag, its variable and the value")
  void badValues() {
    assertTrue(error(Map.of()).contains("--node-name"), error(Map.of()));
    String driver = error(NODE, "--driver-name", "Tandem_Dev");
    assertTrue(driver.contains("--driver-name") && driver.contains("TANDEM_DRA_DRIVER_NAME"));
    assertTrue(driver.contains("'Tandem_Dev'") && driver.contains("DNS subdomain"), driver);
    String other = error(NODE, "--mode", "vf");
    assertTrue(other.contains("--mode") && other.contains("not one of hca, sriov, shared"), other);
    for (String shares : new String[] {"0", "-3"}) {
      String none = error(NODE, "--mode", "shared", "--shares-per-hca", shares);
      assertTrue(
          none.contains("--shares-per-hca")
              && none.contains("TANDEM_DRA_SHARES_PER_HCA")
              && none.contains("'" + shares + "'"),
          none);
    }
    assertTrue(error(NODE, "--ops-port", "70000").contains("--ops-port"));
  }

  @Test
  @DisplayName("--mode sriov and shared are built: the pool's shape, shares and device-info dir")
  void modes() {
    DraConfig sriov =
        DraConfig.parse(new String[] {"--mode", "sriov", "--device-info-dir", "/run/dp"}, NODE);
    assertEquals(HcaShape.SRIOV, sriov.poolSpec().shape());
    assertEquals(Path.of("/run/dp"), sriov.deviceInfoDir());
    Map<String, String> env = Map.of("NODE_NAME", "n1", "TANDEM_DRA_MODE", "shared");
    DraConfig shared = DraConfig.parse(new String[] {"--shares-per-hca=16"}, env);
    assertEquals(HcaShape.SHARED, shared.poolSpec().shape());
    assertEquals(16, shared.poolSpec().sharesPerHca());
  }

  @Test
  @DisplayName("--rediscover-interval: 60 s by default, 0 turns rediscovery off, -1 is refused")
  void rediscoverInterval() {
    assertEquals(Duration.ofSeconds(60), DraConfig.parse(new String[0], NODE).rediscoverInterval());
    assertEquals(
        Duration.ZERO,
        DraConfig.parse(new String[] {"--rediscover-interval=0"}, NODE).rediscoverInterval());
    assertEquals(
        Duration.ofSeconds(5),
        DraConfig.parse(
                new String[0], Map.of("NODE_NAME", "n1", "TANDEM_DRA_REDISCOVER_INTERVAL", "5"))
            .rediscoverInterval());
    String negative = error(NODE, "--rediscover-interval", "-1");
    assertTrue(
        negative.contains("--rediscover-interval")
            && negative.contains("TANDEM_DRA_REDISCOVER_INTERVAL"),
        negative);
  }

  @Test
  @DisplayName("invalid combinations name both settings")
  void combinations() throws Exception {
    String inside =
        error(NODE, "--plugin-registry-dir", "/k/registry", "--plugin-dir", "/k/registry/tandem");
    assertTrue(inside.contains("--plugin-dir") && inside.contains("--plugin-registry-dir"), inside);
    DraConfig.parse(
        new String[] {"--plugin-registry-dir", "/k/registry", "--plugin-dir", "/k/registry-2"},
        NODE);
    Path xml = Files.writeString(dir.resolve("x.xml"), "<topology/>");
    String sources = error(NODE, "--hwloc-xml", xml.toString(), "--sysfs-only");
    assertTrue(sources.contains("--hwloc-xml and --sysfs-only"), sources);
    String shares = error(NODE, "--shares-per-hca", "8");
    assertTrue(
        shares.contains("--shares-per-hca")
            && shares.contains("--mode")
            && shares.contains("only meaningful with"),
        shares);
  }

  @Test
  @DisplayName("docs/configuration.md carries the settings table the kit renders")
  void documented() throws Exception {
    String doc = Files.readString(Path.of("../docs/configuration.md"));
    String table = DraSettings.SETTINGS.markdownTable();
    assertTrue(
        doc.contains("\n\n" + table + "\n"),
        "docs/configuration.md, dra-driver, should carry exactly this table:\n" + table);
  }
}
