package dev.tandem.extender;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.UnusableAotCache;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@DisplayName(
    "ExtenderMain: --help exits 0, an unknown flag exits 2 naming it, --demo prints the page and a curl")
class ExtenderMainIT {

  @TempDir Path dir;
  private final List<Process> demos = new ArrayList<>();

  private Process java(Path out, String... args) throws Exception {
    return java(List.of(), out, args);
  }

  private Process java(List<String> jvm, Path out, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(jvm);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ExtenderMain.class.getName()));
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
    String out = demoOutput(List.of(), dir.resolve("demo.txt"));
    assertTrue(out.contains("page:  http://localhost:") && out.contains("/ui/"), out);
    assertTrue(
        out.contains("/scheduler/filter") && out.contains("\"NodeNames\":[\"aws-p4d.24xlarge\""),
        out);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(UnusableAotCache.class)
  @DisplayName(
      "-XX:AOTCache naming a missing or garbage file: the JVM says so and the extender still answers"
          + " filter")
  void unusableAotCache(UnusableAotCache cache) throws Exception {
    Path log = dir.resolve("aot-" + cache + ".txt");
    String out = demoOutput(List.of(cache.option(dir)), log);
    assertTrue(UnusableAotCache.warned(out) && out.contains("curl"), out);
    Matcher filter = Pattern.compile("(http://localhost:[0-9]+/scheduler/filter)").matcher(out);
    assertTrue(filter.find(), out);
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(filter.group(1)))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
                                + "\"uid\":\"u\"},\"spec\":{\"containers\":[]}},\"Nodes\":null,"
                                + "\"NodeNames\":[\"aws-p4d.24xlarge\"]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    assertTrue(r.body().contains("aws-p4d.24xlarge"), r.body());
  }

  /** The demo's output once it printed its curl line (it keeps running while this reads it). */
  private String demoOutput(List<String> jvm, Path log) throws Exception {
    Process demo = java(jvm, log, "--demo", "--port", "0", "--inspection-port", "0");
    demos.add(demo);
    await("the demo's curl line, or its exit")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(
            () ->
                !demo.isAlive() || Files.readString(log, StandardCharsets.UTF_8).contains("curl"));
    return Files.readString(log, StandardCharsets.UTF_8);
  }

  @AfterEach
  void stopDemos() throws Exception {
    for (Process demo : demos) {
      demo.destroy();
      demo.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
