package dev.tandem.simulator.engine;

import dev.tandem.simulator.engine.PolicyResult.Sample;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.List;

/** Counts and time integrals of one run, turned into a {@link PolicyResult} at the end. */
final class RunTally {

  private final double horizon;
  private final int sampleCount;
  private final int gpuCapacity;
  private final int hcaCapacity;
  private final List<Sample> samples = new ArrayList<>();
  final GangTally gangs = new GangTally();
  int arrived;
  int placed;
  int aligned;
  int alignedWithoutWait;
  int turnedAway;
  private double waitSum;
  private double now;
  private double idleGpuTime;
  private double idleHcaTime;
  private double alignedFreeTime;
  private int idleGpus;
  private int idleHcas;
  private int alignedFree;
  private int waiting;

  RunTally(ClusterState state, double horizon, int sampleCount) {
    this.horizon = Math.max(horizon, 1e-9);
    this.sampleCount = Math.max(sampleCount, 2);
    this.gpuCapacity = ClusterGauge.idle(state, DeviceKind.GPU);
    this.hcaCapacity = ClusterGauge.idle(state, DeviceKind.HCA);
    observe(state, 0);
  }

  /** Integrates the current levels up to {@code t} (capped at the horizon) and samples. */
  void advance(double t) {
    double until = Math.min(t, horizon);
    while (samples.size() < sampleCount && nextSampleTime() <= until) {
      samples.add(new Sample(nextSampleTime(), alignedFree, idleGpus, waiting));
    }
    if (until > now) {
      idleGpuTime += idleGpus * (until - now);
      idleHcaTime += idleHcas * (until - now);
      alignedFreeTime += alignedFree * (until - now);
      now = until;
    }
  }

  private double nextSampleTime() {
    return horizon * samples.size() / (sampleCount - 1);
  }

  /** Reads the levels after the state changed. */
  void observe(ClusterState state, int waitingNow) {
    idleGpus = ClusterGauge.idle(state, DeviceKind.GPU);
    idleHcas = ClusterGauge.idle(state, DeviceKind.HCA);
    alignedFree = ClusterGauge.alignedPairsFree(state);
    waiting = waitingNow;
  }

  void started(double wait, boolean isAligned) {
    placed++;
    waitSum += wait;
    if (isAligned) {
      aligned++;
      if (wait == 0) {
        alignedWithoutWait++;
      }
    }
  }

  PolicyResult result(PlacementPolicy policy, int waitingAtEnd, boolean partial, double wall) {
    double span = Math.max(now, 1e-9);
    return new PolicyResult(
        policy.name(),
        policy.description(),
        arrived,
        placed,
        aligned,
        alignedWithoutWait,
        turnedAway,
        waitingAtEnd,
        placed == 0 ? 0 : waitSum / placed,
        gpuCapacity == 0 ? 0 : idleGpuTime / span / gpuCapacity,
        hcaCapacity == 0 ? 0 : idleHcaTime / span / hcaCapacity,
        alignedFreeTime / span,
        List.copyOf(samples),
        partial,
        wall,
        gangs.figure());
  }
}
