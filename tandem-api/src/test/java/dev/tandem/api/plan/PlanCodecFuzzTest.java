package dev.tandem.api.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.api.Annotations;
import java.nio.charset.StandardCharsets;

/**
 * Any annotation value either decodes to a plan that encodes and decodes to itself, or is refused
 * with an {@link IllegalArgumentException} naming the annotation; nothing else escapes. Runs its
 * corpus in {@code mvn verify}; {@code benchmarks/run-fuzz} fuzzes it for longer.
 */
class PlanCodecFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void decodeRefusesOrRoundTrips(byte[] input) {
    String annotation = new String(input, StandardCharsets.UTF_8);
    Plan plan;
    try {
      plan = PlanCodec.decode(annotation);
    } catch (IllegalArgumentException e) {
      assertTrue(e.getMessage().startsWith(Annotations.PLAN), e.getMessage());
      return;
    }
    Plan again = PlanCodec.decode(PlanCodec.encode(plan));
    assertEquals(PlanCodec.encode(plan), PlanCodec.encode(again));
  }
}
