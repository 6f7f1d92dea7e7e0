package dev.tandem.extender.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("configuration: file plus flags, validated at start")
class ConfigLoaderTest {

  @Test
  @DisplayName("defaults: port 8888, prefix /scheduler, switch/required, 5 min TTL")
  void defaults() {
    ExtenderConfig c = ConfigLoader.load(List.of());
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
    assertNull(ConfigLoader.load(List.of("--demo", "--help")));
    UsageException e =
        assertThrows(UsageException.class, () -> ConfigLoader.load(List.of("--colour", "x")));
    assertTrue(e.getMessage().contains("--colour"));
    assertThrows(UsageException.class, () -> ConfigLoader.load(List.of("--port")));
  }

  @Test
  @DisplayName("a YAML file sets values; flags (also --flag=value) win over it")
  void fileAndFlags(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("extender.yaml");
    Files.writeString(
        file,
        "port: 9000\nprefix: /tandem\ndefaultAlignment: numa\ndefaultMode: preferred\n"
            + "assumedTtl: 90s\nbodyLimit: 2Mi\n");
    ExtenderConfig c =
        ConfigLoader.load(List.of("--config", file.toString(), "--port=9100", "--demo"));
    assertEquals(9100, c.port());
    assertEquals("/tandem", c.prefix());
    assertEquals("numa/preferred", c.defaultPolicy().toString());
    assertEquals(Duration.ofSeconds(90), c.assumedTtl());
    assertEquals(2L << 20, c.bodyLimit());
    assertTrue(c.demo());
  }

  @Test
  @DisplayName("bad values stop the start with a message naming the setting")
  void invalid(@TempDir Path dir) {
    assertTrue(
        assertThrows(
                ConfigException.class,
                () -> ConfigLoader.load(List.of("--default-alignment", "rack")))
            .getMessage()
            .contains("rack"));
    assertTrue(
        assertThrows(
                ConfigException.class, () -> ConfigLoader.load(List.of("--assumed-ttl", "soon")))
            .getMessage()
            .contains("assumedTtl"));
    assertTrue(
        assertThrows(
                ConfigException.class, () -> ConfigLoader.load(List.of("--tls-cert", "/nope.pem")))
            .getMessage()
            .contains("--tls-key"));
    assertTrue(
        assertThrows(
                ConfigException.class, () -> ConfigLoader.load(List.of("--prefix", "scheduler")))
            .getMessage()
            .contains("prefix"));
    assertTrue(
        assertThrows(
                ConfigException.class, () -> ConfigLoader.build(java.util.Map.of("colour", "x")))
            .getMessage()
            .contains("colour"));
    assertTrue(
        assertThrows(
                ConfigException.class,
                () ->
                    ConfigLoader.load(
                        List.of("--demo-topologies", dir.resolve("missing").toString())))
            .getMessage()
            .contains("not a directory"));
  }
}
