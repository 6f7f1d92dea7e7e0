package dev.tandem.simulator.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The DOM of a local page as Debian's headless Chromium renders it, with networking off so that a
 * page reaching for anything outside itself shows it. Missing Chromium fails, naming the package.
 */
final class HeadlessDom {

  private static final Path BINARY = Path.of("/usr/bin/chromium");

  private HeadlessDom() {}

  static String of(Path page, Path workDir) throws IOException, InterruptedException {
    if (!Files.isExecutable(BINARY)) {
      throw new AssertionError(
          BINARY + " is missing: install Debian's chromium (./tandem test does this)");
    }
    Path out = workDir.resolve("dom.html");
    Path err = workDir.resolve("chromium.err");
    Process p =
        new ProcessBuilder(
                List.of(
                    BINARY.toString(),
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-extensions",
                    "--disable-dev-shm-usage",
                    "--proxy-server=127.0.0.1:9",
                    "--user-data-dir=" + workDir.resolve("profile"),
                    "--dump-dom",
                    page.toUri().toString()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      throw new AssertionError("chromium did not finish in 60 s: " + Files.readString(err));
    }
    if (p.exitValue() != 0) {
      throw new AssertionError("chromium exited " + p.exitValue() + ": " + Files.readString(err));
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }
}
