package dev.tandem.extender.ui;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium} run headless, one fresh profile per run, no network beyond what the
 * page asks for. Missing Chromium is an error naming the package, never a skip.
 */
final class HeadlessChromium {

  static final Path BINARY = Path.of("/usr/bin/chromium");
  private static final long TIMEOUT_SECONDS = 30;
  private static final int VIRTUAL_TIME_BUDGET_MS = 5000;

  HeadlessChromium() {}

  /** Fails with a message naming the Debian package when Chromium is not installed. */
  static void requireInstalled() {
    if (!Files.isExecutable(BINARY)) {
      throw new AssertionError(
          BINARY
              + " is missing: the /ui page test needs Debian's Chromium. "
              + "Install it with `apt-get install -y chromium` (./tandem test does this).");
    }
  }

  /** The DOM after the page's scripts ran (its fetches answered, virtual time advanced). */
  String dumpDom(String url) throws IOException, InterruptedException {
    Result result = run(List.of("--dump-dom", url));
    return result.stdout();
  }

  /** Saves a PNG of the page as a 1280x800 browser window shows it. */
  void screenshot(String url, Path png) throws IOException, InterruptedException {
    Files.deleteIfExists(png);
    Files.createDirectories(png.toAbsolutePath().getParent());
    run(
        List.of(
            "--screenshot=" + png.toAbsolutePath(),
            "--window-size=1280,800",
            "--hide-scrollbars",
            url));
  }

  private Result run(List<String> action) throws IOException, InterruptedException {
    requireInstalled();
    // Outside JUnit's temp dirs: Chromium's helper processes may still be writing when it exits.
    Path run = Files.createTempDirectory("tandem-chromium-");
    Path profile = Files.createDirectory(run.resolve("profile"));
    Path out = run.resolve("stdout");
    Path err = run.resolve("stderr");
    List<String> command =
        new ArrayList<>(
            List.of(
                BINARY.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profile,
                "--virtual-time-budget=" + VIRTUAL_TIME_BUDGET_MS));
    command.addAll(action);
    Process process =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new AssertionError(
            "chromium did not finish within "
                + TIMEOUT_SECONDS
                + " s: "
                + command
                + "\n"
                + tail(err));
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            "chromium exited with " + process.exitValue() + ": " + command + "\n" + tail(err));
      }
      return new Result(Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      deleteTree(run);
    }
  }

  private static String tail(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }

  /**
   * Best effort: a file a lingering helper process still holds is left to the OS's /tmp cleanup.
   */
  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | UncheckedIOException e) {
      // ignored: see above
    }
  }

  private record Result(String stdout) {}
}
