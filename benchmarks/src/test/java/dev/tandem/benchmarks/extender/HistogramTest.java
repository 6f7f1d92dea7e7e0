package dev.tandem.benchmarks.extender;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("a class histogram as jcmd prints it")
class HistogramTest {

  private static final String JAVA_25 =
      """
      12345:
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:         74319        7359120  [B (java.base@25.0.1)
         2:          6325        1963008  [Ljdk.internal.vm.FillerElement; (java.base@25.0.1)
         3:         64760        1554240  [Ljava.lang.Object; (java.base@25.0.1)
      Total        145404       10876368
      """;

  @Test
  @DisplayName("the JVM's filler arrays (dead space) count neither as a class nor in the total")
  void fillerIsNotLive() {
    Histogram h = Histogram.parse(JAVA_25);
    assertEquals(10876368 - 1963008, h.totalBytes());
    assertEquals(2, h.rows().size());
    assertEquals(0, h.instances("[Ljdk.internal.vm.FillerElement;"));
    assertEquals(64760, h.instances("[Ljava.lang.Object;"));
  }
}
