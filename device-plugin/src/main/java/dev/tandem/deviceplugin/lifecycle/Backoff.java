package dev.tandem.deviceplugin.lifecycle;

/**
 * Delays between failed registration attempts: doubling from {@code initialMs} up to {@code maxMs},
 * at most {@code maxAttempts} in a row before the plugin gives up (and its DaemonSet restarts it).
 */
public record Backoff(long initialMs, long maxMs, int maxAttempts) {

  public static final Backoff DEFAULT = new Backoff(500, 8_000, 10);

  /** The delay before attempt {@code failures + 1}. */
  public long delayAfter(int failures) {
    long d = initialMs << Math.min(20, Math.max(0, failures - 1));
    return Math.min(maxMs, d);
  }

  public boolean exhausted(int failures) {
    return failures >= maxAttempts;
  }
}
