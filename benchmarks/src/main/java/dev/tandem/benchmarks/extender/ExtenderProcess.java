package dev.tandem.benchmarks.extender;

import dev.tandem.fixtures.ProcessFootprint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The extender jar as its own process against an API server, on a given JDK with the Deployment's
 * JVM options, and what that JDK's tools read from it: the class histogram of live objects (after
 * the full GC it forces), RSS from {@code /proc}, GC time from {@code jstat}, pauses from the GC
 * log.
 */
final class ExtenderProcess implements AutoCloseable {

  private static final Pattern PAUSE = Pattern.compile("Pause .* ([0-9.]+)ms$");

  private final Process process;
  private final Path javaHome;
  private final int port;
  private final int inspectionPort;
  private final Path gcLog;
  private final Path log;

  private ExtenderProcess(
      Process process, Path javaHome, int port, int inspectionPort, Path gcLog, Path log) {
    this.process = process;
    this.javaHome = javaHome;
    this.port = port;
    this.inspectionPort = inspectionPort;
    this.gcLog = gcLog;
    this.log = log;
  }

  /**
   * Starts the jar on the JDK that runs this benchmark; see {@link #start(Path, Path, List, Map,
   * Path)}.
   */
  static ExtenderProcess start(Path jar, List<String> jvm, Map<String, String> apiServer, Path dir)
      throws IOException {
    return start(Path.of(System.getProperty("java.home")), jar, jvm, apiServer, dir);
  }

  /**
   * Starts the jar on the JDK at {@code javaHome}, whose jcmd and jstat then read it; {@code
   * apiServer} is the environment that tells fabric8 where the API server is ({@code KUBECONFIG},
   * or {@code KUBERNETES_MASTER} for the mock).
   */
  static ExtenderProcess start(
      Path javaHome, Path jar, List<String> jvm, Map<String, String> apiServer, Path dir)
      throws IOException {
    return start(javaHome, jar, jvm, apiServer, dir, List.of("--no-leader-election"));
  }

  /**
   * As {@link #start(Path, Path, List, Map, Path)} on the JDK that runs this benchmark, with these
   * extender flags (leader election's) instead of {@code --no-leader-election}.
   */
  static ExtenderProcess start(
      Path jar, List<String> jvm, Map<String, String> apiServer, Path dir, List<String> flags)
      throws IOException {
    return start(Path.of(System.getProperty("java.home")), jar, jvm, apiServer, dir, flags);
  }

  private static ExtenderProcess start(
      Path javaHome,
      Path jar,
      List<String> jvm,
      Map<String, String> apiServer,
      Path dir,
      List<String> flags)
      throws IOException {
    int port = freePort();
    int inspectionPort = freePort();
    Path gcLog = dir.resolve("gc.log");
    Path log = dir.resolve("extender.log");
    List<String> cmd = new ArrayList<>();
    cmd.add(tool(javaHome, "java"));
    cmd.addAll(jvm);
    cmd.add("-Xlog:gc:file=" + gcLog);
    cmd.addAll(
        List.of(
            "-jar",
            jar.toString(),
            "--port=" + port,
            "--inspection-port=" + inspectionPort,
            "--host=127.0.0.1",
            // loopback only; without it (or a client CA) the extender refuses to start
            "--insecure-verbs"));
    cmd.addAll(flags);
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().remove("KUBECONFIG");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    pb.environment().putAll(apiServer);
    return new ExtenderProcess(pb.start(), javaHome, port, inspectionPort, gcLog, log);
  }

  int port() {
    return port;
  }

  boolean alive() {
    return process.isAlive();
  }

  Path log() {
    return log;
  }

  /**
   * Waits until {@code /readyz} on the inspection port answers 200 (informers synced); false if the
   * process died.
   */
  boolean awaitReady(Duration timeout) throws InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest readyz =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + inspectionPort + "/readyz"))
            .build();
    return awaitUntil(
        timeout,
        () -> {
          try {
            return http.send(readyz, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
          } catch (IOException notYet) {
            return false; // not listening yet
          }
        });
  }

  /**
   * Waits until the series {@code name} without labels of {@code /metrics} reads {@code value};
   * false if the process died or {@code timeout} passed first.
   */
  boolean awaitMetric(String name, double value, Duration timeout) throws InterruptedException {
    return awaitUntil(timeout, () -> metric(name) == value);
  }

  /** What {@link #awaitUntil} polls: one look at the running extender. */
  @FunctionalInterface
  private interface Poll {
    boolean reached() throws InterruptedException;
  }

  /** Polls every 250 ms while the process lives, until {@code poll} holds or time runs out. */
  private boolean awaitUntil(Duration timeout, Poll poll) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        return false;
      }
      if (poll.reached()) {
        return true;
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    return false;
  }

  /**
   * One sample of the extender's {@code /metrics} (a series without labels), or -1 while it does
   * not answer.
   */
  double metric(String name) throws InterruptedException {
    return metric(name, "");
  }

  /**
   * One sample of the extender's {@code /metrics}: the series {@code name} whose label text
   * contains {@code labels} (e.g. {@code verb="filter"}; empty: the series without labels), or -1.
   */
  double metric(String name, String labels) throws InterruptedException {
    try {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + inspectionPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      return r.body()
          .lines()
          .filter(
              l ->
                  labels.isEmpty()
                      ? l.startsWith(name + " ")
                      : l.startsWith(name + "{") && l.substring(0, l.indexOf('}')).contains(labels))
          .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
          .findFirst()
          .orElse(-1);
    } catch (IOException notYet) {
      return -1;
    }
  }

  /** The live-object histogram (jcmd GC.class_histogram runs a full GC first). */
  Histogram histogram() {
    return Histogram.parse(jcmd("GC.class_histogram"));
  }

  long rssKib() {
    return footprint().rssKib();
  }

  long peakRssKib() {
    return footprint().peakKib();
  }

  /** The process's resident memory from {@code /proc}; -1 in each figure once it is gone. */
  private ProcessFootprint footprint() {
    try {
      return ProcessFootprint.of(process.pid());
    } catch (IOException gone) {
      return new ProcessFootprint(-1, -1, -1, -1, -1);
    }
  }

  /** Total GC time so far in seconds, young and full, from jstat's GCT column. */
  GcTimes gcTimes() {
    String out = run(List.of(tool(javaHome, "jstat"), "-gcutil", String.valueOf(process.pid())));
    String[] head = out.lines().findFirst().orElseThrow().trim().split("\\s+");
    String[] row = out.lines().skip(1).findFirst().orElseThrow().trim().split("\\s+");
    return new GcTimes(
        Double.parseDouble(row[column(head, "FGC")]),
        Double.parseDouble(row[column(head, "FGCT")]),
        Double.parseDouble(row[column(head, "GCT")]));
  }

  /** The longest GC pause logged since the log had {@code fromLine} lines, in ms. */
  double longestPauseMs(int fromLine) {
    double max = 0;
    for (String line : gcLogLines().subList(fromLine, gcLogLines().size())) {
      Matcher m = PAUSE.matcher(line);
      if (m.find()) {
        max = Math.max(max, Double.parseDouble(m.group(1)));
      }
    }
    return max;
  }

  int gcLogLineCount() {
    return gcLogLines().size();
  }

  private List<String> gcLogLines() {
    try {
      return Files.readAllLines(gcLog);
    } catch (IOException e) {
      return List.of();
    }
  }

  /** GC counters: full collections, their seconds, all collections' seconds. */
  record GcTimes(double fullCount, double fullSeconds, double totalSeconds) {}

  private static int column(String[] head, String name) {
    for (int i = 0; i < head.length; i++) {
      if (head[i].equals(name)) {
        return i;
      }
    }
    throw new IllegalStateException("jstat printed no " + name + " column");
  }

  private String jcmd(String command) {
    return run(List.of(tool(javaHome, "jcmd"), String.valueOf(process.pid()), command));
  }

  /** A JDK's own tool: jcmd and jstat must be the same release as the JVM they attach to. */
  private static String tool(Path javaHome, String name) {
    Path tool = javaHome.resolve("bin").resolve(name);
    if (!Files.isExecutable(tool)) {
      throw new IllegalStateException(tool + " is missing: " + javaHome + " is not a full JDK");
    }
    return tool.toString();
  }

  private static String run(List<String> cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (p.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  /** Whether the log of a dead process says it ran out of heap. */
  boolean ranOutOfMemory() {
    try {
      return !process.isAlive()
          && Files.readString(log.toAbsolutePath()).contains("OutOfMemoryError");
    } catch (IOException e) {
      return false;
    }
  }
}
