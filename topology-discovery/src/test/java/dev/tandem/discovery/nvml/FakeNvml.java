package dev.tandem.discovery.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * NVIDIA's libnvidia-ml stood in for by {@code e2e/tools/fakenvml}: the NVML functions the agent
 * calls, exported with their C signatures by a Go program built as a shared library ({@code go
 * build -buildmode=c-shared}), answering from a JSON layout. Built once per JVM into {@code
 * target/fake-nvml/}; Go is required (the build fails the test, naming what to install, rather than
 * skipping it). One copy per process: a second Go runtime must not be loaded beside it.
 */
public final class FakeNvml {

  /** The fake's own controls, beside the NVML functions. */
  interface Controls extends Library {
    int fakeNvmlLoad(String layoutFile);

    int fakeNvmlInits();

    int fakeNvmlOpen();
  }

  private static Path library;
  private static Controls controls;

  private FakeNvml() {}

  /** The fake library's path, built on first use. */
  public static synchronized Path library() {
    if (library == null) {
      Path out = Path.of("target", "fake-nvml", "libnvidia-ml.so.1").toAbsolutePath();
      build(out);
      controls = Native.load(out.toString(), Controls.class);
      library = out;
    }
    return library;
  }

  /** Makes every later {@code nvmlInit_v2} answer from this layout (JSON, see the Go source). */
  public static void layout(Path json) {
    library();
    if (controls.fakeNvmlLoad(json.toString()) != 0) {
      throw new IllegalArgumentException("the fake NVML cannot read its layout " + json);
    }
  }

  /** Writes a layout file into {@code dir} and makes it the fake's. */
  public static Path layout(Path dir, String json) {
    try {
      Path f = Files.writeString(dir.resolve("nvml-layout.json"), json);
      layout(f);
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How many times {@code nvmlInit_v2} was called in this process. */
  public static int inits() {
    library();
    return controls.fakeNvmlInits();
  }

  /** Successful {@code nvmlInit_v2} calls not yet matched by {@code nvmlShutdown}. */
  public static int open() {
    library();
    return controls.fakeNvmlOpen();
  }

  private static void build(Path out) {
    Path e2e = e2eModule();
    String go = goTool();
    try {
      Files.createDirectories(out.getParent());
      Process p =
          new ProcessBuilder(
                  go, "build", "-buildmode=c-shared", "-o", out.toString(), "./tools/fakenvml")
              .directory(e2e.toFile())
              .redirectErrorStream(true)
              .start();
      p.getOutputStream().close();
      String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(100, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(
            "building the fake NVML library (go build -buildmode=c-shared ./tools/fakenvml in "
                + e2e
                + ") failed: "
                + log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + go + " to build the fake NVML library", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted building the fake NVML library", e);
    }
  }

  private static Path e2eModule() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("e2e").resolve("go.mod"))) {
        return d.resolve("e2e");
      }
    }
    throw new IllegalStateException(
        "e2e/go.mod not found above " + Path.of("").toAbsolutePath() + ": run from the repository");
  }

  /** {@code go} on PATH, else the usual install location; never a skip. */
  private static String goTool() {
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        Path go = Path.of(dir, "go");
        if (Files.isExecutable(go)) {
          return go.toString();
        }
      }
    }
    Path usual = Path.of("/usr/local/go/bin/go");
    if (Files.isExecutable(usual)) {
      return usual.toString();
    }
    throw new IllegalStateException(
        "Go is required to build the fake NVML library these tests load (e2e/tools/fakenvml):"
            + " install Go 1.25 or later (https://go.dev/dl) and put it on PATH");
  }
}
