package dev.tandem.kit.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("settings: flags over environment over file over defaults, rules, usage, docs")
class SettingsTest {

  static final Setting<Integer> PORT =
      Setting.of("--port", "N", Parsers.intRange(0, 65_535))
          .env("T_PORT")
          .fileKey("port")
          .defaultValue("8080")
          .help("listen port");
  static final Setting<Duration> POLL =
      Setting.of("--poll", "SECONDS", Parsers.seconds(1, 60))
          .env("T_POLL")
          .defaultValue("10")
          .help("seconds between polls");
  static final Setting<String> NAME =
      Setting.of("--name", "NAME", Parsers.text()).env("T_NAME").asRequired().help("who we are");
  static final Setting<Boolean> DEMO =
      Setting.toggle("--demo", true).env("T_DEMO").fileKey("demo").defaultValue("false");
  static final Setting<Path> DEMO_DIR =
      Setting.of("--demo-dir", "DIR", Parsers.existingDirectory())
          .fileKey("demoDir")
          .defaultText("bundled")
          .help("demo topologies");
  static final Setting<Path> CONFIG =
      Setting.of("--config", "FILE", Parsers.existingFile()).env("T_CONFIG").help("the file");

  static final Setting<Path> ADOPTED =
      Setting.of("--adopted", "FILE", Parsers.path())
          .env("T_ADOPTED")
          .help("another program's file, read when it exists and --config names none");

  static final Settings SETTINGS =
      Settings.of("usage: t [flags]\n", List.of(PORT, POLL, NAME, DEMO, DEMO_DIR, CONFIG))
          .rules(Rule.requires(DEMO_DIR, DEMO), Rule.atMostOne(PORT, POLL))
          .configFile(CONFIG);

  @TempDir Path dir;

  private Path file(String text) throws Exception {
    return Files.writeString(dir.resolve("t.conf"), text);
  }

  /** key=value lines: enough of a format for the kit's tests. */
  private static Map<String, String> load(Path file) {
    try {
      Map<String, String> out = new LinkedHashMap<>();
      for (String line : Files.readAllLines(file)) {
        out.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
      }
      return out;
    } catch (IOException e) {
      throw new InvalidConfigurationException(file + ": " + e);
    }
  }

  private static Resolved resolve(Map<String, String> env, String... args) {
    return SETTINGS.resolve(List.of(args), env, SettingsTest::load);
  }

  private static String error(Map<String, String> env, String... args) {
    return assertThrows(InvalidConfigurationException.class, () -> resolve(env, args)).getMessage();
  }

  @Test
  @DisplayName(
      "defaults apply, typed; a blank variable counts as unset; unrelated ones are ignored")
  void defaults() {
    Resolved r = resolve(Map.of("T_NAME", "a", "T_PORT", " ", "PATH", "/bin"));
    assertEquals(8080, r.get(PORT));
    assertEquals(Duration.ofSeconds(10), r.get(POLL));
    assertEquals(false, r.get(DEMO));
    assertNull(r.get(DEMO_DIR));
    assertEquals(Source.DEFAULT, r.source(PORT));
    assertFalse(r.isGiven(DEMO));
  }

  @Test
  @DisplayName("a flag beats the environment, which beats the file, which beats the default")
  void precedence() throws Exception {
    Path f = file("port=9000\ndemo=true");
    assertEquals(9000, resolve(Map.of("T_NAME", "a"), "--config", f.toString()).get(PORT));
    Resolved env = resolve(Map.of("T_NAME", "a", "T_PORT", "9100", "T_CONFIG", f.toString()));
    assertEquals(9100, env.get(PORT));
    assertEquals(Source.ENVIRONMENT, env.source(PORT));
    assertEquals(true, env.get(DEMO));
    assertEquals(Source.FILE, env.source(DEMO));
    Resolved flag =
        resolve(Map.of("T_NAME", "a", "T_PORT", "9100"), "--config=" + f, "--port", "9200");
    assertEquals(9200, flag.get(PORT));
    assertEquals(Source.FLAG, flag.source(PORT));
  }

  @Test
  @DisplayName("a switch takes no value; --switch=false is allowed")
  void switches() {
    assertTrue(resolve(Map.of("T_NAME", "a"), "--demo").get(DEMO));
    assertFalse(resolve(Map.of("T_NAME", "a"), "--demo=false").get(DEMO));
  }

  @Test
  @DisplayName("bad values name the flag, the variable and the value, and where it came from")
  void badValues() throws Exception {
    assertEquals(
        "--port (T_PORT, file key port): 'x' is not a whole number",
        error(Map.of("T_NAME", "a"), "--port", "x"));
    assertEquals(
        "--poll (T_POLL): '0' is out of range 1..60 (from the environment)",
        error(Map.of("T_NAME", "a", "T_POLL", "0")));
    Path f = file("port=70000");
    assertEquals(
        "--port (T_PORT, file key port): '70000' is out of range 0..65535 (from " + f + ")",
        error(Map.of("T_NAME", "a"), "--config", f.toString()));
    assertTrue(
        error(Map.of("T_NAME", "a", "T_DEMO", "yes"))
            .startsWith("--demo (T_DEMO, file key demo): 'yes' is not true or false"));
  }

  @Test
  @DisplayName(
      "unknown flags, missing values, missing required settings and unknown file keys are refused by name")
  void invalidSets() throws Exception {
    assertEquals("unknown flag '--colour' (see --help)", error(Map.of(), "--colour=red"));
    assertEquals("--port needs a value (see --help)", error(Map.of("T_NAME", "a"), "--port"));
    assertEquals(
        "--port needs a value (see --help)", error(Map.of("T_NAME", "a"), "--port", "--demo"));
    assertEquals("--name (T_NAME) is required: who we are", error(Map.of()));
    Path f = file("port=1\ncolour=red");
    assertEquals(
        f + ": unknown key colour; known: demo, demoDir, port",
        error(Map.of("T_NAME", "a"), "--config", f.toString()));
    assertTrue(error(Map.of("T_NAME", "a"), "--config", "/nope").contains("'/nope'"));
  }

  @Test
  @DisplayName(
      "a fallback file is read when no file is named and it exists; a named file wins; an absent one reads none")
  void fallbackFile() throws Exception {
    Settings s =
        Settings.of("usage: t [flags]\n", List.of(PORT, CONFIG, ADOPTED))
            .configFile(CONFIG, ADOPTED);
    Path adopted = Files.writeString(dir.resolve("adopted.conf"), "port=9300");
    Path named = file("port=9000");
    Resolved fallback =
        s.resolve(List.of(), Map.of("T_ADOPTED", adopted.toString()), SettingsTest::load);
    assertEquals(9300, fallback.get(PORT));
    assertEquals(Source.FILE, fallback.source(PORT));
    assertEquals(adopted, fallback.file());
    Resolved both =
        s.resolve(
            List.of("--adopted", adopted.toString(), "--config", named.toString()),
            Map.of(),
            SettingsTest::load);
    assertEquals(9000, both.get(PORT));
    assertEquals(named, both.file());
    Resolved absent =
        s.resolve(
            List.of("--adopted", dir.resolve("absent.conf").toString()),
            Map.of(),
            SettingsTest::load);
    assertEquals(8080, absent.get(PORT));
    assertNull(absent.file());
    assertNull(resolve(Map.of("T_NAME", "a")).file());
  }

  @Test
  @DisplayName("settings that make no sense together are refused naming both")
  void rules() {
    String needs = error(Map.of("T_NAME", "a"), "--demo-dir", dir.toString());
    assertEquals(
        "--demo-dir (file key demoDir) needs --demo (T_DEMO, file key demo); give both or neither",
        needs);
    assertEquals(
        dir, resolve(Map.of("T_NAME", "a"), "--demo-dir", dir.toString(), "--demo").get(DEMO_DIR));
    String one = error(Map.of("T_NAME", "a", "T_POLL", "5"), "--port", "1");
    assertTrue(one.startsWith("give at most one of --port"), one);
    assertTrue(one.endsWith("(got --port and --poll)"), one);
    assertFalse(resolve(Map.of("T_NAME", "a"), "--demo=false").isGiven(DEMO));
  }

  @Test
  @DisplayName("two settings that must differ are refused naming both and the shared value")
  void differ() {
    Setting<String> gpu =
        Setting.of("--gpu", "NAME", Parsers.text()).env("T_GPU").defaultValue("a/gpu");
    Setting<String> hca =
        Setting.of("--hca", "NAME", Parsers.text()).env("T_HCA").defaultValue("a/hca");
    Settings two = Settings.of("usage: t\n", List.of(gpu, hca)).rules(Rule.differ(gpu, hca));
    assertEquals("a/hca", two.resolve(List.of(), Map.of()).get(hca));
    InvalidConfigurationException e =
        assertThrows(
            InvalidConfigurationException.class,
            () -> two.resolve(List.of("--gpu", "a/hca"), Map.of()));
    assertEquals("--gpu (T_GPU), --hca (T_HCA) are both a/hca; they must differ", e.getMessage());
  }

  @Test
  @DisplayName("usage lists every flag with its variable, file key and default, then --help")
  void usage() {
    assertEquals(
        """
        usage: t [flags]

          --port N        listen port (default 8080) [T_PORT, file: port]
          --poll SECONDS  seconds between polls (default 10) [T_POLL]
          --name NAME     who we are (required) [T_NAME]
          --demo           (default false) [T_DEMO, file: demo]
          --demo-dir DIR  demo topologies (default bundled) [file: demoDir]
          --config FILE   the file [T_CONFIG]
          --help          this text
        """,
        SETTINGS.usage());
    assertTrue(Settings.wantsHelp(List.of("--port", "1", "-h")));
  }

  @Test
  @DisplayName(
      "the Markdown table has one row per setting, with a file-key column when a file exists")
  void markdown() {
    assertEquals(
        """
        | Flag | Environment variable | File key | Default | Meaning |
        | --- | --- | --- | --- | --- |
        | `--port N` | `T_PORT` | `port` | `8080` | listen port |
        | `--poll SECONDS` | `T_POLL` | — | `10` | seconds between polls |
        | `--name NAME` | `T_NAME` | — | required | who we are |
        | `--demo` | `T_DEMO` | `demo` | `false` |  |
        | `--demo-dir DIR` | — | `demoDir` | bundled | demo topologies |
        | `--config FILE` | `T_CONFIG` | — | none | the file |
        """,
        SETTINGS.markdownTable());
    assertEquals(
        "| Flag | Environment variable | Default | Meaning |\n",
        Settings.of("x", List.of(POLL)).markdownTable().lines().findFirst().get() + "\n");
  }

  @Test
  @DisplayName("the start-up line shows every value and where the non-defaults came from")
  void describe() {
    Resolved r = resolve(Map.of("T_NAME", "a", "T_POLL", "5"), "--demo");
    assertEquals(
        "--port=8080, --poll=5 (T_POLL), --name=a (T_NAME), --demo=true (flag)", r.describe());
    Setting<String> token = Setting.of("--token", "T", Parsers.text()).asSecret();
    assertEquals(
        "--token=*** (flag)",
        Settings.of("x", List.of(token))
            .resolve(List.of("--token", "s3cret"), Map.of())
            .describe());
  }

  @Test
  @DisplayName(
      "a switch that turns a setting off (--no-x) reads as its flag: given bare or =true it turns"
          + " the setting off, =false keeps it on, and the start-up line shows the flag's sense")
  void invertedSwitch() {
    Setting<Boolean> election =
        Setting.toggle("--no-election", false).env("T_ELECTION").defaultValue("true");
    Settings settings = Settings.of("x", List.of(election));
    Resolved byDefault = settings.resolve(List.of(), Map.of());
    assertTrue(byDefault.get(election));
    assertEquals("--no-election=false", byDefault.describe());
    for (String off : List.of("--no-election", "--no-election=true", "--no-election=TRUE")) {
      Resolved r = settings.resolve(List.of(off), Map.of());
      assertFalse(r.get(election), off);
      assertEquals("--no-election=true (flag)", r.describe(), off);
    }
    Resolved kept = settings.resolve(List.of("--no-election=false"), Map.of());
    assertTrue(kept.get(election));
    assertEquals("--no-election=false (flag)", kept.describe());
    Resolved fromEnv = settings.resolve(List.of(), Map.of("T_ELECTION", "false"));
    assertFalse(fromEnv.get(election));
    assertEquals("--no-election=true (T_ELECTION)", fromEnv.describe());
    assertEquals(
        "--no-election (T_ELECTION): 'maybe' is not true or false",
        assertThrows(
                InvalidConfigurationException.class,
                () -> settings.resolve(List.of("--no-election=maybe"), Map.of()))
            .getMessage());
    Resolved demoOff = resolve(Map.of("T_NAME", "a"), "--demo=false");
    assertFalse(demoOff.get(DEMO));
  }

  @Test
  @DisplayName("a flag declared twice is a programming error")
  void duplicate() {
    assertThrows(IllegalArgumentException.class, () -> Settings.of("x", List.of(PORT, PORT)));
  }

  @Test
  @DisplayName(
      "a table's variant of a shared setting (required here, optional elsewhere) answers for the shared declaration")
  void variantAnswersForItsDeclaration() {
    Setting<Duration> shared = POLL.defaultValue(null);
    Settings required =
        Settings.of("x", List.of(shared.asRequired())).rules(Rule.atMostOne(shared));
    assertEquals(
        "--poll (T_POLL) is required: seconds between polls",
        assertThrows(
                InvalidConfigurationException.class, () -> required.resolve(List.of(), Map.of()))
            .getMessage());
    Resolved r = required.resolve(List.of("--poll", "7"), Map.of());
    assertEquals(Duration.ofSeconds(7), r.get(shared));
    assertEquals(Source.FLAG, r.source(shared));
    assertTrue(r.isGiven(shared));
    assertNull(
        Settings.of("x", List.of(shared)).resolve(List.of(), Map.of()).get(shared),
        "optional in another table");
  }
}
