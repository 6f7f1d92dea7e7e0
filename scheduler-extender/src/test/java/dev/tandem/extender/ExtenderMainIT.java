package dev.tandem.extender;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "ExtenderMain: --help exits 0, an unknown flag exits 2 naming it, --demo prints the page and a curl")
class ExtenderMainIT {

  @TempDir Path dir;

  private Process java(Path out, String... args) throws Exception {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-cp",
                System.getProperty("java.class.path"),
                ExtenderMain.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
  }

  private int exit(Path out, String... args) throws Exception {
    Process p = java(out, args);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "did not exit: " + List.of(args));
    return p.exitValue();
  }

  @Test
  @DisplayName("--help and unknown flags")
  void usage() throws Exception {
    Path help = dir.resolve("help.txt");
    assertEquals(0, exit(help, "--help"));
    String out = Files.readString(help, StandardCharsets.UTF_8);
    assertTrue(out.contains("--demo") && out.contains("--assumed-ttl"), out);
    Path bad = dir.resolve("bad.txt");
    assertEquals(2, exit(bad, "--frobnicate"));
    assertTrue(Files.readString(bad).contains("--frobnicate"));
  }

  @Test
  @DisplayName(
      "--demo-topologies DIR without --demo exits 2 naming both flags instead of starting in cluster mode")
  void demoTopologiesWithoutDemo() throws Exception {
    Path out = dir.resolve("demo-topologies.txt");
    assertEquals(2, exit(out, "--demo-topologies", dir.toString()));
    String text = Files.readString(out);
    assertTrue(text.contains("--demo-topologies") && text.contains("needs --demo "), text);
  }

  @Test
  @DisplayName(
      "outside the demo, verbs without --client-ca exit 2 before connecting, naming the ways out")
  void refusesUnauthenticatedBind() throws Exception {
    Path out = dir.resolve("insecure.txt");
    assertEquals(2, exit(out, "--port", "0", "--inspection-port", "0"));
    String text = Files.readString(out);
    assertTrue(
        text.contains("would serve bind over plain HTTP")
            && text.contains("--client-ca")
            && text.contains("--insecure-verbs"),
        text);
  }

  @Test
  @DisplayName("--demo on a free port prints the page URL and a filter curl")
  void demo() throws Exception {
    Path log = dir.resolve("demo.txt");
    Process demo = java(log, "--demo", "--port", "0", "--inspection-port", "0");
    try {
      await("the demo's curl line, or its exit")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  !demo.isAlive()
                      || Files.readString(log, StandardCharsets.UTF_8).contains("curl"));
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertTrue(out.contains("page:  http://localhost:") && out.contains("/ui/"), out);
      assertTrue(
          out.contains("/scheduler/filter") && out.contains("\"NodeNames\":[\"aws-p4d.24xlarge\""),
          out);
    } finally {
      demo.destroy();
      demo.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
