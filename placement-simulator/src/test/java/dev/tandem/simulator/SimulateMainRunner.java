package dev.tandem.simulator;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the command in-process for tests in other packages; keeps its output. */
public final class SimulateMainRunner {

  private SimulateMainRunner() {}

  /** The exit code. */
  public static int run(String... args) {
    ByteArrayOutputStream sink = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(sink, true, StandardCharsets.UTF_8);
    return SimulateMain.run(args, out, out);
  }
}
