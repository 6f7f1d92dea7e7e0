package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.certs.CertificateSettings;
import dev.tandem.extender.config.ExtenderSettings;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.metrics.ExtenderMetrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** docs/configuration.md and docs/operations.md say only what the code does. */
class ConfigurationDocTest {

  private static final Pattern FLAG = Pattern.compile("`(--[a-z-]+)");
  private static final Pattern USAGE_FLAG = Pattern.compile("(?m)^\\s+(--[a-z-]+)");
  private static final String CONFIG = DocText.read("docs/configuration.md");

  @Test
  @DisplayName(
      "the extender's table (flags, variables, file keys, defaults) is exactly the one its declarations render")
  void extenderTable() {
    String table = ExtenderSettings.SETTINGS.markdownTable();
    assertTrue(
        DocText.section(CONFIG, "## scheduler-extender").contains("\n\n" + table + "\n"),
        "docs/configuration.md, scheduler-extender, should carry exactly this table:\n" + table);
  }

  @Test
  @DisplayName("the certificates subcommand's table is exactly the one its declarations render")
  void certificatesTable() {
    String table = CertificateSettings.SETTINGS.markdownTable();
    assertTrue(
        DocText.section(CONFIG, "## scheduler-extender certificates")
            .contains("\n\n" + table + "\n"),
        "docs/configuration.md, scheduler-extender certificates, should carry exactly this table:\n"
            + table);
  }

  @Test
  @DisplayName("the device plugin's configuration keys are exactly the ones ResourceConfig accepts")
  void devicePluginKeys() {
    String source =
        DocText.read(
            "device-plugin/src/main/java/dev/tandem/deviceplugin/config/ResourceConfig.java");
    Set<String> accepted = new TreeSet<>(quoted(source, "KEYS ="));
    quoted(source, "SELECTOR_KEYS =").forEach(k -> accepted.add("selectors." + k));
    String table = DocText.section(CONFIG, "### The device plugin's JSON configuration");
    assertEquals(accepted, DocText.firstColumn(table, Pattern.compile("`([a-zA-Z.]+)`")));
  }

  @Test
  @DisplayName(
      "operations.md names exactly the metric families the extender, the agent and the device plugin export, and alerts use only those")
  void metricNames() {
    ExtenderMetrics metrics = new ExtenderMetrics(DemoCluster.of(List.of()));
    metrics.verb("filter").record(Duration.ofMillis(1));
    metrics.bound("bound");
    metrics.informerEvent("pods");
    Set<String> extender = new TreeSet<>();
    for (String line : metrics.scrape().split("\n")) {
      if (line.startsWith("# TYPE ")) {
        extender.add(line.split(" ")[2].replaceAll("_max$", ""));
      }
    }
    Set<String> agent = metricFamiliesIn("node-topology-agent");
    Set<String> plugin = metricFamiliesIn("device-plugin");
    String ops = DocText.section(DocText.read("docs/operations.md"), "## Metrics");
    int split = ops.indexOf("Each agent serves");
    int pluginSplit = ops.indexOf("Each device plugin serves");
    Pattern name = Pattern.compile("`(tandem_[a-z_]+)`");
    assertEquals(
        extender, DocText.firstColumn(ops.substring(0, split), name), "extender metrics table");
    assertEquals(
        agent, DocText.firstColumn(ops.substring(split, pluginSplit), name), "agent metrics table");
    assertEquals(
        plugin,
        DocText.firstColumn(ops.substring(pluginSplit), name),
        "device-plugin metrics table");
    Set<String> used = DocText.all(ops, Pattern.compile("(tandem_[a-z_]+)"));
    used.removeIf(
        n ->
            extender.contains(n.replaceAll("_(bucket|sum|count|max)$", ""))
                || agent.contains(n)
                || plugin.contains(n));
    assertEquals(Set.of(), used, "alerts use metrics that do not exist");
  }

  /** Metric families registered in a daemon's sources (counters get Prometheus' _total). */
  private static Set<String> metricFamiliesIn(String module) {
    Set<String> out = new TreeSet<>();
    Pattern builder = Pattern.compile("(Gauge|Counter|Timer)\\.builder\\(\\s*\"(tandem_[a-z_]+)\"");
    try (var files = Files.walk(DocText.REPO.resolve(module + "/src/main/java"))) {
      for (var f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = builder.matcher(Files.readString(f));
        while (m.find()) {
          out.add(
              m.group(2)
                  + (m.group(1).equals("Counter")
                      ? "_total"
                      : m.group(1).equals("Timer") ? "_seconds" : ""));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertTrue(out.size() >= 5, module + " metrics found in sources: " + out);
    return out;
  }

  private static List<String> quoted(String source, String declaration) {
    int start = source.indexOf(declaration);
    int end = source.indexOf(");", start);
    return DocText.all(source.substring(start, end), Pattern.compile("\"([A-Za-z]+)\"")).stream()
        .toList();
  }
}
