package dev.tandem.kit.retry;

import java.time.Duration;

/**
 * Exponential backoff: {@code initial} after the first failure, doubled after each further one,
 * capped at {@code max}; with {@code maxAttempts} above 0, the caller gives up after that many
 * failures in a row. No jitter: no caller retries in lockstep with others.
 *
 * @param initial delay after the first failure
 * @param max longest delay
 * @param maxAttempts failures in a row before giving up; 0 for never
 */
public record Backoff(Duration initial, Duration max, int maxAttempts) {

  public Backoff {
    if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          "backoff needs 0 < initial <= max, got " + initial + " and " + max);
    }
    if (maxAttempts < 0) {
      throw new IllegalArgumentException("backoff needs maxAttempts >= 0, got " + maxAttempts);
    }
  }

  /** Retries for ever. */
  public Backoff(Duration initial, Duration max) {
    this(initial, max, 0);
  }

  /** The delay before retry number {@code failures} (1 for the first). */
  public Duration delay(int failures) {
    int shift = Math.min(Math.max(failures - 1, 0), 30);
    long millis = initial.toMillis() << shift;
    return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
  }

  /** Whether {@code failures} in a row mean giving up. */
  public boolean exhausted(int failures) {
    return maxAttempts > 0 && failures >= maxAttempts;
  }
}
