package dev.tandem.simulator;

import java.io.PrintStream;
import java.util.function.DoubleConsumer;

/** A one-line progress bar on standard error, redrawn when the percentage changes. */
final class ProgressBar {

  private static final int WIDTH = 30;
  private final PrintStream out;
  private final boolean enabled;

  ProgressBar(PrintStream out, boolean enabled) {
    this.out = out;
    this.enabled = enabled;
  }

  /** A listener for one step, e.g. one policy's replay. */
  DoubleConsumer step(String name) {
    int[] shown = {-1};
    return share -> {
      int percent = (int) Math.floor(100 * Math.min(1, Math.max(0, share)));
      int filled = percent * WIDTH / 100;
      if (enabled && (filled != shown[0] || percent == 100)) {
        shown[0] = percent == 100 ? -1 : filled;
        out.print(
            "\r"
                + String.format("%-17s", name)
                + " ["
                + "#".repeat(filled)
                + ".".repeat(WIDTH - filled)
                + "] "
                + percent
                + "%"
                + (percent == 100 ? "\n" : ""));
        out.flush();
      }
    };
  }
}
