package dev.tandem.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.Topologies;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SimulateMainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return SimulateMain.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("--help prints the usage and exits 0")
  void help() {
    assertEquals(0, run("--help"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("--cluster FILE[:COUNT]"));
  }

  @Test
  @DisplayName("a bad flag exits 2 naming the flag")
  void badFlags() {
    assertEquals(2, run("--cluster", "x.xml", "--frobnicate", "1"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown flag --frobnicate"));
    err.reset();
    assertEquals(2, run("--cluster", "x.xml", "--load", "-1"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--load: must be above 0"));
    err.reset();
    assertEquals(2, run("--cluster", "x.xml", "--policies", "joint,magic"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown policy 'magic'"));
    err.reset();
    assertEquals(2, run("--pods", "10"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--cluster is required"));
  }

  @Test
  @DisplayName("a cluster file that does not parse exits 1 naming the file, line and column")
  void badClusterFile() throws Exception {
    Path file = Files.createTempFile("cluster", ".json");
    Files.writeString(file, "{\n  \"kind\": \"NodeTopology\",\n  oops\n}");
    assertEquals(1, run("--cluster", file.toString(), "--quiet"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8).contains(file + ":3:"),
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("--max-seconds stops the run, keeps what it has and says so")
  void timeLimit() {
    assertEquals(
        0,
        run(
            "--cluster",
            Topologies.path("nccl-topo/azure-ndv5-h100.xml") + ":20",
            "--pods",
            "5000",
            "--max-seconds",
            "0.000001",
            "--quiet"));
    String report = out.toString(StandardCharsets.UTF_8);
    assertTrue(report.contains("\"partial\" : true"), report);
    assertTrue(report.contains("\"policy\" : \"joint\""), report);
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("stopped after"));
  }

  @Test
  @DisplayName("bad gang flags exit 2 naming the flag")
  void badGangFlags() {
    assertEquals(2, run("--cluster", "x.xml", "--gang-share", "1.5"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--gang-share: must be from 0 to 1"));
    err.reset();
    assertEquals(2, run("--cluster", "x.xml", "--gang-shape", "4+4:2"));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("--gang-shape: one shape"));
    err.reset();
    assertEquals(2, run("--cluster", "x.xml", "--rail-alignment", "strict"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8)
            .contains("--rail-alignment: 'strict' is not one of required, preferred"));
  }

  @Test
  @DisplayName("generated gangs on NDv5 nodes (rails by PCI order): each policy reports its gangs")
  void gangFigure() throws Exception {
    Path html = Files.createTempFile("gangs", ".html");
    Path json = Files.createTempFile("gangs", ".json");
    assertEquals(
        0,
        run(
            "--cluster",
            Topologies.path("nccl-topo/azure-ndv5-h100.xml") + ":6",
            "--pods",
            "120",
            "--gang-share",
            "0.3",
            "--gang-size",
            "3",
            "--policies",
            "joint,stock,optimum",
            "--html",
            html.toString(),
            "--json",
            json.toString(),
            "--quiet"));
    String report = Files.readString(json);
    assertTrue(Files.readString(html).contains("<table id=\"gangs\">"));
    assertTrue(report.contains("\"crossRailPairs\""), report);
    assertTrue(report.contains("\"gangOptimum\" : {"), report);
    assertTrue(report.contains("gangs of 3 × 4+4, rail alignment preferred"), report);
  }

  @Test
  @DisplayName("a trace with gangs is read; a bad gang field exits 1 naming the line and field")
  void gangTrace() throws Exception {
    Path trace = Files.createTempFile("trace", ".csv");
    String cluster = Topologies.path("nccl-topo/azure-ndv5-h100.xml") + ":2";
    Files.writeString(
        trace, "arrival,gpus,hcas,duration,gang,gang-size\n0,4,4,60,a,2\n0,4,4,60,a,2\n");
    assertEquals(
        0,
        run("--cluster", cluster, "--trace", trace.toString(), "--policies", "joint", "--quiet"));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("\"crossRailPairs\" : 0"));
    Files.writeString(trace, "arrival,gpus,hcas,duration,gang,gang-size\n0,4,4,60,a,0\n");
    assertEquals(1, run("--cluster", cluster, "--trace", trace.toString(), "--quiet"));
    assertTrue(
        err.toString(StandardCharsets.UTF_8)
            .contains(":2: field 'gang-size': '0' is not a gang size (1 or more members)"));
  }
}
