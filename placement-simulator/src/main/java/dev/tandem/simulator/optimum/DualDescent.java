package dev.tandem.simulator.optimum;

import dev.tandem.simulator.optimum.OptimumBound.Constraint;
import dev.tandem.simulator.workload.PodSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Coordinate descent on the dual of {@link OptimumBound}'s relaxation: duals constant on equal time
 * windows, one coordinate per (constraint, window). The dual objective is convex and piecewise
 * linear in each coordinate, minimized exactly by walking its breakpoints.
 */
final class DualDescent {

  private final List<PodSpec> pods;
  private final List<Constraint> constraints;
  private final double width;
  private final double[][] y;
  private final double[] covered;

  /** overlap[w]: pods overlapping window w, as {pod index, seconds of overlap}. */
  private final List<List<double[]>> overlap = new ArrayList<>();

  DualDescent(List<PodSpec> pods, List<Constraint> constraints, int windows) {
    this.pods = pods;
    this.constraints = constraints;
    double end = pods.stream().mapToDouble(p -> p.arrival() + p.duration()).max().orElse(1);
    this.width = end / windows;
    this.y = new double[constraints.size()][windows];
    this.covered = new double[pods.size()];
    for (int w = 0; w < windows; w++) {
      overlap.add(new ArrayList<>());
    }
    for (int i = 0; i < pods.size(); i++) {
      PodSpec p = pods.get(i);
      int first = (int) Math.min(windows - 1, Math.floor(p.arrival() / width));
      int last = (int) Math.min(windows - 1, Math.floor((p.arrival() + p.duration()) / width));
      for (int w = first; w <= last; w++) {
        double seconds =
            Math.min(p.arrival() + p.duration(), (w + 1) * width)
                - Math.max(p.arrival(), w * width);
        if (seconds > 0) {
          overlap.get(w).add(new double[] {i, seconds});
        }
      }
    }
  }

  /**
   * The smallest dual value found: an upper bound on the relaxation, hence on the optimum. Stops
   * after {@code sweeps}, or earlier once {@link System#nanoTime()} passes {@code deadlineNanos}
   * (every point visited is a bound; later sweeps only tighten it).
   */
  double minimize(int sweeps, long deadlineNanos) {
    double best = value();
    for (int s = 0; s < sweeps && !past(deadlineNanos); s++) {
      for (int c = 0; c < constraints.size(); c++) {
        for (int w = 0; w < y[c].length; w++) {
          update(c, w);
        }
      }
      best = Math.min(best, value());
    }
    return best;
  }

  private static boolean past(long deadlineNanos) {
    return deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos > 0;
  }

  private void update(int c, int w) {
    Constraint constraint = constraints.get(c);
    double old = y[c][w];
    List<double[]> breaks = new ArrayList<>();
    double slope = constraint.capacity() * width;
    for (double[] o : overlap.get(w)) {
      int i = (int) o[0];
      double a = constraint.coefficient(pods.get(i)) * o[1];
      double r = 1 - (covered[i] - a * old);
      if (a > 0 && r > 0) {
        breaks.add(new double[] {r / a, a});
        slope -= a;
      }
    }
    breaks.sort((p, q) -> Double.compare(p[0], q[0]));
    double lambda = 0;
    for (double[] b : breaks) {
      if (slope >= 0) {
        break;
      }
      lambda = b[0];
      slope += b[1];
    }
    y[c][w] = lambda;
    for (double[] o : overlap.get(w)) {
      int i = (int) o[0];
      covered[i] += constraint.coefficient(pods.get(i)) * o[1] * (lambda - old);
    }
  }

  private double value() {
    double v = 0;
    for (int c = 0; c < constraints.size(); c++) {
      double sum = 0;
      for (double d : y[c]) {
        sum += d;
      }
      v += constraints.get(c).capacity() * width * sum;
    }
    for (double cov : covered) {
      v += Math.max(0, 1 - cov);
    }
    return v;
  }
}
