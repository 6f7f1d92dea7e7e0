package dev.tandem.extender.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Settings;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("configuration: flags over environment over file, validated at start")
class ExtenderSettingsTest {

  private static ExtenderConfig load(List<String> args) {
    return ExtenderConfig.load(args, Map.of());
  }

  @Test
  @DisplayName("defaults: port 8888, prefix /scheduler, switch/required, 5 min TTL")
  void defaults() {
    ExtenderConfig c = load(List.of());
    assertEquals(8888, c.port());
    assertEquals("/scheduler", c.prefix());
    assertEquals(Alignment.SWITCH, c.defaultPolicy().alignment());
    assertEquals(AlignmentMode.REQUIRED, c.defaultPolicy().mode());
    assertEquals(Duration.ofMinutes(5), c.assumedTtl());
    assertFalse(c.demo());
    assertTrue(c.leaderElection());
  }

  @Test
  @DisplayName("--help asks for usage; an unknown flag is a usage error naming it")
  void usage() {
    assertTrue(Settings.wantsHelp(List.of("--demo", "--help")));
    InvalidConfigurationException e =
        assertThrows(InvalidConfigurationException.class, () -> load(List.of("--colour", "x")));
    assertTrue(e.getMessage().contains("--colour"));
    assertThrows(InvalidConfigurationException.class, () -> load(List.of("--port")));
    String usage = ExtenderSettings.SETTINGS.usage();
    assertTrue(usage.contains("--demo-topologies DIR") && usage.contains("TANDEM_EXTENDER_PORT"));
  }

  @Test
  @DisplayName("a YAML file sets values; flags (also --flag=value) win over it")
  void fileAndFlags(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("extender.yaml");
    Files.writeString(
        file,
        "port: 9000\nprefix: /tandem\ndefaultAlignment: numa\ndefaultMode: preferred\n"
            + "assumedTtl: 90s\nbodyLimit: 2Mi\n");
    ExtenderConfig c = load(List.of("--config", file.toString(), "--port=9100", "--demo"));
    assertEquals(9100, c.port());
    assertEquals("/tandem", c.prefix());
    assertEquals("numa/preferred", c.defaultPolicy().toString());
    assertEquals(Duration.ofSeconds(90), c.assumedTtl());
    assertEquals(2L << 20, c.bodyLimit());
    assertTrue(c.demo());
  }

  @Test
  @DisplayName("the environment beats the file, flags beat the environment; identity from POD_NAME")
  void environment(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(dir.resolve("extender.yaml"), "port: 9000\nleaderElection: false\n");
    ExtenderConfig c =
        ExtenderConfig.load(
            List.of("--config", file.toString()),
            Map.of("TANDEM_EXTENDER_PORT", "9200", "POD_NAME", "replica-b", "HOSTNAME", "h"));
    assertEquals(9200, c.port());
    assertFalse(c.leaderElection());
    assertEquals("replica-b", c.identity());
    assertEquals("h", ExtenderConfig.load(List.of(), Map.of("HOSTNAME", "h")).identity());
    assertEquals(
        9300,
        ExtenderConfig.load(List.of("--port", "9300"), Map.of("TANDEM_EXTENDER_PORT", "9200"))
            .port());
  }

  @Test
  @DisplayName("--demo-topologies without --demo is refused naming both flags")
  void demoTopologiesNeedsDemo(@TempDir Path dir) {
    String m =
        assertThrows(
                InvalidConfigurationException.class,
                () -> load(List.of("--demo-topologies", dir.toString())))
            .getMessage();
    assertTrue(m.contains("--demo-topologies") && m.contains("needs --demo "), m);
  }

  @Test
  @DisplayName("a standby rehearses 2,000 cycles unless told otherwise; 0 turns it off")
  void standbyRehearsal() {
    assertEquals(2000, load(List.of()).rehearsalCycles());
    assertEquals(0, load(List.of("--standby-rehearsal-cycles", "0")).rehearsalCycles());
    String m =
        assertThrows(
                InvalidConfigurationException.class,
                () -> load(List.of("--standby-rehearsal-cycles", "-1")))
            .getMessage();
    assertTrue(
        m.startsWith("--standby-rehearsal-cycles (TANDEM_EXTENDER_STANDBY_REHEARSAL_CYCLES"), m);
  }

  @Test
  @DisplayName("bad values stop the start with a message naming the setting")
  void invalid(@TempDir Path dir) throws Exception {
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> load(List.of("--default-alignment", "rack")))
            .getMessage()
            .startsWith(
                "--default-alignment (TANDEM_EXTENDER_DEFAULT_ALIGNMENT, file key defaultAlignment):"
                    + " 'rack' is not one of"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class, () -> load(List.of("--assumed-ttl", "soon")))
            .getMessage()
            .contains("assumedTtl"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class, () -> load(List.of("--tls-cert", "/nope.pem")))
            .getMessage()
            .contains("--tls-key"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class, () -> load(List.of("--prefix", "scheduler")))
            .getMessage()
            .contains("prefix"));
    Path colour = Files.writeString(dir.resolve("colour.yaml"), "colour: x\n");
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () -> load(List.of("--config", colour.toString())))
            .getMessage()
            .contains(colour + ": unknown key colour"));
    assertTrue(
        assertThrows(
                InvalidConfigurationException.class,
                () ->
                    load(List.of("--demo", "--demo-topologies", dir.resolve("missing").toString())))
            .getMessage()
            .contains("not a directory"));
  }
}
