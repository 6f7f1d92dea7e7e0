package dev.tandem.simulator;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.ClusterSpec;
import dev.tandem.simulator.engine.GangFigure;
import dev.tandem.simulator.engine.PolicyResult;
import dev.tandem.simulator.engine.RunLimits;
import dev.tandem.simulator.engine.Simulation;
import dev.tandem.simulator.optimum.CrossRailBound;
import dev.tandem.simulator.optimum.Optimum;
import dev.tandem.simulator.optimum.OptimumResult;
import dev.tandem.simulator.policy.Policies;
import dev.tandem.simulator.report.Report;
import dev.tandem.simulator.workload.GangMix;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.simulator.workload.Shape;
import dev.tandem.simulator.workload.TraceReader;
import dev.tandem.simulator.workload.WorkloadGenerator;
import dev.tandem.topology.model.DeviceKind;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Runs what the options ask: cluster, workload, each policy, the optimum; builds the report. */
final class Simulator {

  private Simulator() {}

  static Report run(SimulateOptions o, String command, ProgressBar progress) {
    long start = System.nanoTime();
    long deadline = o.maxSeconds() > 0 ? start + (long) (o.maxSeconds() * 1e9) : Long.MAX_VALUE;
    Cluster cluster = ClusterSpec.load(o.clusters());
    List<PodSpec> pods;
    String workload;
    if (o.trace() != null) {
      pods = TraceReader.read(o.trace(), cluster.limits());
      workload = "trace " + o.trace();
    } else {
      WorkloadGenerator g =
          new WorkloadGenerator(
              o.shapes(), o.load(), o.meanDuration(), o.pods(), o.seed(), o.gangs());
      pods = g.generate(cluster.count(DeviceKind.GPU));
      workload =
          String.format(
                  Locale.ROOT,
                  "generated: Poisson arrivals at %.0f %% GPU load, shapes %s, mean duration %.0f s,"
                      + " seed %d",
                  100 * o.load(),
                  String.join(",", o.shapes().stream().map(Shape::text).toList()),
                  o.meanDuration(),
                  o.seed())
              + gangs(o.gangs());
    }
    RunLimits limits = new RunLimits(o.maxWait(), deadline, o.seed(), 200);
    Simulation simulation = new Simulation(cluster, pods, limits);
    List<PolicyResult> results = new ArrayList<>();
    boolean partial = false;
    for (String name : o.policies()) {
      if (!name.equals("optimum") && !partial) {
        PolicyResult r = simulation.run(Policies.byName(name), progress.step(name));
        results.add(r);
        partial = r.partial();
      }
    }
    OptimumResult optimum = null;
    GangFigure gangOptimum = null;
    if (o.policies().contains("optimum") && !partial) {
      progress.step("optimum").accept(0);
      optimum = Optimum.of(cluster, pods, deadline);
      gangOptimum = CrossRailBound.of(cluster, pods);
      progress.step("optimum").accept(1);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    String message;
    if (partial) {
      message =
          String.format(
              Locale.ROOT,
              "stopped after %.1f s (--max-seconds %s): partial results; the last policy covers"
                  + " only the pods that arrived before the stop, later policies and the optimum"
                  + " did not run",
              seconds,
              plain(o.maxSeconds()));
    } else if (optimum != null && optimum.partial()) {
      partial = true;
      message =
          String.format(
              Locale.ROOT,
              "stopped after %.1f s (--max-seconds %s): every policy ran; the optimum's bound was"
                  + " cut short and is looser than it would be",
              seconds,
              plain(o.maxSeconds()));
    } else {
      message = String.format(Locale.ROOT, "finished in %.1f s", seconds);
    }
    return new Report(
        command,
        cluster.composition(),
        cluster.count(DeviceKind.GPU),
        cluster.count(DeviceKind.HCA),
        workload,
        pods.size(),
        o.maxWait(),
        results,
        optimum,
        gangOptimum,
        partial,
        message);
  }

  /** The generator's gangs, as the report's workload line says them. */
  private static String gangs(GangMix g) {
    if (g.share() == 0) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "; %.0f %% of jobs gangs of %d × %d+%d, rail alignment %s",
        100 * g.share(),
        g.size(),
        g.gpus(),
        g.hcas(),
        g.railAlignment().name().toLowerCase(Locale.ROOT));
  }

  /** A number of seconds as given on the command line: 60, 0.5, 0.000001. */
  private static String plain(double seconds) {
    return BigDecimal.valueOf(seconds).stripTrailingZeros().toPlainString();
  }
}
