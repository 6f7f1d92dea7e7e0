package dev.tandem.simulator.engine;

/**
 * How a run is bounded.
 *
 * @param maxWaitSeconds how long a pod may stay pending before it counts as turned away; 0 makes a
 *     loss system (a pod not placed on arrival is turned away), which is what the optimum assumes
 * @param deadlineNanos {@link System#nanoTime()} value after which the run stops with what it has
 * @param seed seed of the choices the real systems leave to chance
 * @param samples how many points the time series keep
 */
public record RunLimits(double maxWaitSeconds, long deadlineNanos, long seed, int samples) {

  /** No wall-clock limit. */
  public static RunLimits of(double maxWaitSeconds, long seed) {
    return new RunLimits(maxWaitSeconds, Long.MAX_VALUE, seed, 200);
  }

  public boolean expired() {
    return deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0;
  }
}
