package dev.tandem.simulator.workload;

import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded synthetic workload: Poisson arrivals at the rate that keeps a target share of the
 * cluster's GPUs busy, shapes drawn from a weighted mix, exponential durations.
 *
 * <p>Rate: {@code load × clusterGpus / (mean GPUs per pod × mean duration)} pods per second, so
 * that by Little's law the GPUs asked for at any time average {@code load × clusterGpus}.
 *
 * @param shapes the shape mix
 * @param load target share of the cluster's GPUs requested (0.8 = 80 %)
 * @param meanDuration mean run time, seconds
 * @param pods how many pods to generate
 * @param seed random seed: same seed, same trace
 */
public record WorkloadGenerator(
    List<Shape> shapes, double load, double meanDuration, int pods, long seed) {

  public WorkloadGenerator {
    shapes = List.copyOf(shapes);
    if (shapes.isEmpty() || load <= 0 || meanDuration <= 0 || pods < 1) {
      throw new IllegalArgumentException(
          "a generator needs shapes, a load above 0, a mean duration above 0 and at least 1 pod");
    }
  }

  /** The trace for a cluster with this many GPUs (HCA-only shapes count as 0 GPUs). */
  public List<PodSpec> generate(int clusterGpus) {
    double totalWeight = shapes.stream().mapToDouble(Shape::weight).sum();
    double meanGpus = shapes.stream().mapToDouble(s -> s.gpus() * s.weight()).sum() / totalWeight;
    double rate = load * clusterGpus / (Math.max(meanGpus, 1e-9) * meanDuration);
    Random random = new Random(seed);
    List<PodSpec> out = new ArrayList<>(pods);
    double t = 0;
    for (int i = 0; i < pods; i++) {
      t += exponential(random, 1 / rate);
      Shape s = pick(random, totalWeight);
      double duration = Math.max(1, exponential(random, meanDuration));
      out.add(new PodSpec(i, t, s.gpus(), s.hcas(), AlignmentPolicy.DEFAULT, duration));
    }
    return List.copyOf(out);
  }

  private Shape pick(Random random, double totalWeight) {
    double x = random.nextDouble() * totalWeight;
    for (Shape s : shapes) {
      x -= s.weight();
      if (x < 0) {
        return s;
      }
    }
    return shapes.get(shapes.size() - 1);
  }

  private static double exponential(Random random, double mean) {
    return -mean * Math.log(1 - random.nextDouble());
  }
}
