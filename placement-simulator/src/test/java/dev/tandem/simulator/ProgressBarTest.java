package dev.tandem.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.DoubleConsumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ProgressBarTest {

  private final ByteArrayOutputStream sink = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(sink, true, StandardCharsets.UTF_8);

  private String drawn() {
    return sink.toString(StandardCharsets.UTF_8);
  }

  @Test
  @DisplayName("one line per step, redrawn in place only when the bar grows, ended at 100 %")
  void redrawsWhenTheBarGrows() {
    DoubleConsumer joint = new ProgressBar(out, true).step("joint");
    joint.accept(0);
    joint.accept(0.01); // same width as 0 %: not redrawn
    joint.accept(0.5);
    joint.accept(1);
    String[] draws = drawn().split("\r", -1);
    assertEquals(4, draws.length, drawn());
    assertEquals("joint             [..............................] 0%", draws[1]);
    assertEquals("joint             [###############...............] 50%", draws[2]);
    assertEquals("joint             [##############################] 100%\n", draws[3]);
  }

  @Test
  @DisplayName("off (not a terminal, or --quiet): nothing is written")
  void quiet() {
    DoubleConsumer joint = new ProgressBar(out, false).step("joint");
    joint.accept(0.5);
    joint.accept(1);
    assertEquals("", drawn());
  }
}
