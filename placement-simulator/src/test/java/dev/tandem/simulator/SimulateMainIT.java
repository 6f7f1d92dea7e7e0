package dev.tandem.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.fixtures.Topologies;
import dev.tandem.simulator.policy.Policies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as {@code ./tandem simulate} runs it, in a child JVM: exit codes, the JSON on
 * standard output, the messages on standard error.
 */
class SimulateMainIT {

  private static final Path JAR = Path.of("target", "placement-simulator.jar");
  private static final String NDV5 = Topologies.path("nccl-topo/azure-ndv5-h100.xml").toString();

  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private Run simulate(String... args) throws IOException, InterruptedException {
    return simulateIn(Path.of(""), args);
  }

  /**
   * Runs the jar with {@code cwd} as the working directory (relative paths in args resolve there).
   */
  private Run simulateIn(Path cwd, String... args) throws IOException, InterruptedException {
    assertTrue(Files.isRegularFile(JAR), JAR.toAbsolutePath() + " missing: run mvn package first");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(JAR.toAbsolutePath().toString());
    command.addAll(List.of(args));
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    Process p =
        new ProcessBuilder(command)
            .directory(cwd.toAbsolutePath().toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      throw new AssertionError("the simulator did not finish in 90 s: " + Files.readString(err));
    }
    return new Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  @DisplayName("a generated workload: exit 0, the JSON report on standard output, every policy")
  void generated() throws Exception {
    Run r = simulate("--cluster", NDV5 + ":4", "--pods", "200", "--seed", "7", "--quiet");
    assertEquals(0, r.code(), r.err());
    JsonNode report = new ObjectMapper().readTree(r.out());
    assertEquals(200, report.get("pods").asInt());
    assertFalse(report.get("partial").asBoolean());
    assertEquals(Policies.NAMES.size(), report.get("results").size());
    assertTrue(report.get("optimum").get("aligned").asInt() > 0, r.out());
    assertTrue(r.err().contains("tandem simulate: finished in"), r.err());
  }

  @Test
  @DisplayName("README.md's first simulate example, run as written from the repository root")
  void readmeExample() throws Exception {
    Path repo = Path.of("..").toAbsolutePath().normalize();
    String prefix = "./tandem simulate --cluster test-fixtures/";
    String line =
        Files.readAllLines(repo.resolve("README.md")).stream()
            .filter(l -> l.startsWith(prefix))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README.md shows no `" + prefix + "…` example"));
    String[] args = line.substring("./tandem simulate".length()).trim().split("\\s+");
    Run r = simulateIn(repo, args);
    assertEquals(0, r.code(), r.err());
    JsonNode report = new ObjectMapper().readTree(r.out());
    assertEquals(Policies.NAMES.size(), report.get("results").size(), r.out());
    assertEquals(40, report.get("cluster").get("dell-poweredge-xe8640-h100x4").asInt(), r.out());
    assertEquals(60, report.get("cluster").get("azure-ndv5-h100").asInt(), r.out());
  }

  @Test
  @DisplayName("a trace with a negative duration: exit 1, the file, line and field on stderr")
  void badTrace() throws Exception {
    Path trace = Files.writeString(dir.resolve("t.csv"), "arrival,gpus,hcas,duration\n0,1,1,-2\n");
    Run r = simulate("--cluster", NDV5, "--trace", trace.toString(), "--quiet");
    assertEquals(1, r.code());
    assertTrue(r.err().contains(trace + ":2: field 'duration': -2 is negative"), r.err());
    assertEquals("", r.out());
  }

  @Test
  @DisplayName("a flag it does not know: exit 2 naming the flag")
  void badFlag() throws Exception {
    Run r = simulate("--cluster", NDV5, "--pod", "10");
    assertEquals(2, r.code());
    assertTrue(r.err().contains("unknown flag --pod"), r.err());
  }

  @Test
  @DisplayName("--max-seconds: the run stops, the report is written and marked partial")
  void timeLimit() throws Exception {
    Run r =
        simulate(
            "--cluster", NDV5 + ":20", "--pods", "5000", "--max-seconds", "0.000001", "--quiet");
    assertEquals(0, r.code(), r.err());
    assertTrue(new ObjectMapper().readTree(r.out()).get("partial").asBoolean(), r.out());
    assertTrue(r.err().contains("stopped after"), r.err());
  }
}
