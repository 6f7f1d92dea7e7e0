package dev.tandem.api.plan;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

/**
 * The plan annotation both sides agree on, {@code golden/plan.json}: the extender must write
 * exactly these bytes for {@link #PLAN}, and the device plugin must read them back as {@link
 * #PLAN}.
 */
public final class GoldenPlan {

  /** What {@code golden/plan.json} says, as a record (shared mode: one HCA repeated per slot). */
  public static final Plan PLAN =
      new Plan(
          "n1",
          List.of("GPU-1"),
          List.of("mlx5_0", "mlx5_0"),
          "PIX",
          "switch/required",
          Instant.parse("2026-11-22T03:00:00Z"));

  private GoldenPlan() {}

  /** The bytes of {@code golden/plan.json}. */
  public static String json() {
    try (InputStream in = GoldenPlan.class.getResourceAsStream("/golden/plan.json")) {
      if (in == null) {
        throw new IllegalStateException("golden/plan.json is not on the test classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
