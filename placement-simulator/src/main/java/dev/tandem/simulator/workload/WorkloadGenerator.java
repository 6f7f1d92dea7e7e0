package dev.tandem.simulator.workload;

import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A seeded synthetic workload: Poisson arrivals of jobs at the rate that keeps a target share of
 * the cluster's GPUs busy, exponential durations. A job is one pod of a shape drawn from a weighted
 * mix or, for a share of jobs ({@link GangMix}), a gang whose members arrive together and run for
 * the same time.
 *
 * <p>Rate: {@code load × clusterGpus / (mean GPUs per job × mean duration)} jobs per second, so
 * that by Little's law the GPUs asked for at any time average {@code load × clusterGpus}. Without
 * gangs the trace is the one this generator made before gangs existed, draw for draw.
 *
 * @param shapes the shape mix of single pods
 * @param load target share of the cluster's GPUs requested (0.8 = 80 %)
 * @param meanDuration mean run time, seconds
 * @param pods how many pods to generate (the last gang may take it past, by fewer than its size)
 * @param seed random seed: same seed, same trace
 * @param gangs the gangs, or {@link GangMix#NONE}
 */
public record WorkloadGenerator(
    List<Shape> shapes, double load, double meanDuration, int pods, long seed, GangMix gangs) {

  public WorkloadGenerator {
    shapes = List.copyOf(shapes);
    if (shapes.isEmpty() || load <= 0 || meanDuration <= 0 || pods < 1 || gangs == null) {
      throw new IllegalArgumentException(
          "a generator needs shapes, a load above 0, a mean duration above 0 and at least 1 pod");
    }
  }

  /** A generator of single pods only. */
  public WorkloadGenerator(
      List<Shape> shapes, double load, double meanDuration, int pods, long seed) {
    this(shapes, load, meanDuration, pods, seed, GangMix.NONE);
  }

  /** The trace for a cluster with this many GPUs (HCA-only shapes count as 0 GPUs). */
  public List<PodSpec> generate(int clusterGpus) {
    double totalWeight = shapes.stream().mapToDouble(Shape::weight).sum();
    double meanGpus = shapes.stream().mapToDouble(s -> s.gpus() * s.weight()).sum() / totalWeight;
    double meanJobGpus = (1 - gangs.share()) * meanGpus + gangs.share() * gangs.gpusPerGang();
    double rate = load * clusterGpus / (Math.max(meanJobGpus, 1e-9) * meanDuration);
    Random random = new Random(seed);
    List<PodSpec> out = new ArrayList<>(pods);
    double t = 0;
    int gangCount = 0;
    while (out.size() < pods) {
      t += exponential(random, 1 / rate);
      if (gangs.share() > 0 && random.nextDouble() < gangs.share()) {
        double duration = Math.max(1, exponential(random, meanDuration));
        String name = "gang-" + gangCount++;
        for (int rank = 0; rank < gangs.size(); rank++) {
          GangMember member = new GangMember(name, gangs.size(), rank, gangs.railAlignment());
          out.add(
              new PodSpec(
                  out.size(),
                  t,
                  gangs.gpus(),
                  gangs.hcas(),
                  AlignmentPolicy.DEFAULT,
                  duration,
                  member));
        }
        continue;
      }
      Shape s = pick(random, totalWeight);
      double duration = Math.max(1, exponential(random, meanDuration));
      out.add(new PodSpec(out.size(), t, s.gpus(), s.hcas(), AlignmentPolicy.DEFAULT, duration));
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
