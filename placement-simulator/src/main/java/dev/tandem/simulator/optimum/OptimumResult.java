package dev.tandem.simulator.optimum;

/**
 * The most pods of a trace that could start aligned at their arrival, with clairvoyant placement.
 *
 * @param method {@code exact} (branch and bound finished) or {@code upper bound} (LP dual bound,
 *     see {@link OptimumBound})
 * @param pods pods in the trace
 * @param aligned the optimum (exact) or a number it cannot exceed (bound)
 * @param note why the method was used
 * @param wallSeconds time spent
 * @param partial whether the time limit cut the computation short (a bound is then looser)
 */
public record OptimumResult(
    String method, int pods, int aligned, String note, double wallSeconds, boolean partial) {

  public boolean exact() {
    return "exact".equals(method);
  }

  public double alignedPercent() {
    return pods == 0 ? 0 : 100.0 * aligned / pods;
  }
}
