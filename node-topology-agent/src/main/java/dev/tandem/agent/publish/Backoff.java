package dev.tandem.agent.publish;

import java.time.Duration;

/**
 * Exponential backoff: {@code initial}, doubled after each failure, capped at {@code max}.
 *
 * @param initial delay after the first failure
 * @param max longest delay
 */
public record Backoff(Duration initial, Duration max) {

  public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

  public Backoff {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, got " + initial + " and " + max);
    }
  }

  /** The delay before retry number {@code failures} (1 for the first). */
  public Duration delay(int failures) {
    int shift = Math.min(Math.max(failures - 1, 0), 30);
    long millis = initial.toMillis() << shift;
    return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
  }
}
