package dev.tandem.simulator;

import dev.tandem.simulator.cluster.ClusterFileException;
import dev.tandem.simulator.report.HtmlReport;
import dev.tandem.simulator.report.Report;
import dev.tandem.simulator.report.ReportJson;
import dev.tandem.simulator.workload.TraceException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * {@code tandem simulate}, and {@code tandem claim} when the first argument is {@code claim}
 * ({@link ClaimMain}): exit 0 when the report is written (also after {@code --max-seconds} stopped
 * the run: the report says it is partial), 1 when the trace or a cluster file is refused, 2 for a
 * bad command line.
 */
public final class SimulateMain {

  private SimulateMain() {}

  public static void main(String[] args) {
    // discovery's notes (one per topology file) are for the node agent; here only errors matter
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length > 0 && args[0].equals("claim")) {
      return ClaimMain.run(Arrays.copyOfRange(args, 1, args.length), out, err);
    }
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        out.print(SimulateOptions.USAGE);
        return 0;
      }
    }
    SimulateOptions options;
    try {
      options = SimulateOptions.parse(args);
    } catch (UsageException e) {
      err.println("tandem simulate: " + e.getMessage());
      return 2;
    }
    try {
      Report report =
          Simulator.run(
              options,
              "tandem simulate " + String.join(" ", args),
              new ProgressBar(err, options.progress() && System.console() != null));
      write(options.json(), ReportJson.write(report), out, options.html() == null);
      if (options.html() != null) {
        write(options.html(), HtmlReport.render(report), out, false);
      }
      err.println("tandem simulate: " + report.message());
      return 0;
    } catch (TraceException | ClusterFileException | UncheckedIOException e) {
      err.println("tandem simulate: " + e.getMessage());
      return 1;
    }
  }

  private static void write(Path file, String text, PrintStream out, boolean toStdout) {
    if (file == null) {
      if (toStdout) {
        out.print(text);
      }
      return;
    }
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
