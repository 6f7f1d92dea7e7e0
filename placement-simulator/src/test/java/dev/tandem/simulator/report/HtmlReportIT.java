package dev.tandem.simulator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.fixtures.HeadlessChromium;
import dev.tandem.fixtures.Topologies;
import dev.tandem.simulator.SimulateMainRunner;
import dev.tandem.simulator.policy.Policies;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command's HTML report, rendered by headless Chromium, and its JSON twin. */
class HtmlReportIT {

  @TempDir Path dir;

  @Test
  @DisplayName("the HTML report renders offline with its table and three inline SVG plots")
  void rendersInChromium() throws Exception {
    Path html = dir.resolve("report.html");
    Path json = dir.resolve("report.json");
    int code =
        SimulateMainRunner.run(
            "--cluster",
            Topologies.path("nccl-topo/azure-ndv4-a100.xml") + ":3",
            "--cluster",
            Topologies.path("dell-poweredge-xe8640-h100x4.xml") + ":2",
            "--pods",
            "150",
            "--shapes",
            "1+1:2,2+2:1,4+4:1",
            "--seed",
            "3",
            "--html",
            html.toString(),
            "--json",
            json.toString(),
            "--quiet");
    assertEquals(0, code);
    String page = Files.readString(html, StandardCharsets.UTF_8);
    assertFalse(page.contains("http://") || page.contains("https://"), "external URL in the page");
    String dom = HeadlessChromium.offline().dumpDom(html.toUri().toString());
    assertEquals(3, count(dom, "<svg"));
    assertTrue(dom.contains("<table id=\"results\">"));
    List<String> policies = new ArrayList<>(Policies.NAMES);
    policies.add("optimum");
    for (String policy : policies) {
      assertTrue(dom.contains(">" + policy), policy + " missing from the rendered table");
    }
    assertEquals(2 * Policies.NAMES.size(), count(dom, "<polyline"), "two time series per policy");
    JsonNode report = new ObjectMapper().readTree(json.toFile());
    assertEquals(Policies.NAMES.size(), report.get("results").size());
    assertEquals(150, report.get("pods").asInt());
    assertFalse(report.get("partial").asBoolean());
  }

  private static int count(String text, String needle) {
    Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
