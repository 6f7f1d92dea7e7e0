package dev.tandem.simulator.engine;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.RailSets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.DoubleConsumer;

/**
 * Replays a trace on a cluster under one policy, event by event: departures free devices, arrivals
 * join the pending queue, and every pending pod is offered to the policy in arrival order (as
 * kube-scheduler retries unschedulable pods when the cluster changes). Metrics are integrated up to
 * the last arrival.
 */
public final class Simulation {

  private final Cluster cluster;
  private final List<PodSpec> trace;
  private final RunLimits limits;

  public Simulation(Cluster cluster, List<PodSpec> trace, RunLimits limits) {
    this.cluster = cluster;
    this.trace = List.copyOf(trace);
    this.limits = limits;
  }

  /** Runs one policy; {@code progress} hears the share of the trace replayed (0..1). */
  public PolicyResult run(PlacementPolicy policy, DoubleConsumer progress) {
    long start = System.nanoTime();
    Run run = new Run(policy);
    boolean partial = run.loop(progress);
    return run.tally.result(policy, run.pending.size(), partial, (System.nanoTime() - start) / 1e9);
  }

  private record Departure(double time, PodSpec pod, int node) {}

  /** The mutable state of one run. */
  private final class Run {
    final PlacementPolicy policy;
    final ClusterState state = new ClusterState(cluster);
    final Random random = new Random(limits.seed());
    final PriorityQueue<Departure> departures =
        new PriorityQueue<>((a, b) -> Double.compare(a.time, b.time));
    final List<PodSpec> pending = new ArrayList<>();
    final RunTally tally;
    int next;

    Run(PlacementPolicy policy) {
      this.policy = policy;
      double horizon = trace.isEmpty() ? 0 : trace.get(trace.size() - 1).arrival();
      this.tally = new RunTally(state, horizon, limits.samples());
    }

    /** Returns whether the run stopped early. */
    boolean loop(DoubleConsumer progress) {
      int events = 0;
      while (next < trace.size() || !departures.isEmpty()) {
        if ((++events & 63) == 0) {
          if (limits.expired()) {
            return true;
          }
          progress.accept((double) next / Math.max(1, trace.size()));
        }
        double t = nextTime();
        if (Double.isInfinite(t)) {
          break;
        }
        tally.advance(t);
        boolean freed = release(t);
        int firstNew = pending.size();
        arrive(t);
        schedule(t, freed ? 0 : firstNew);
        expire(t);
        tally.observe(state, pending.size());
      }
      progress.accept(1);
      return false;
    }

    private double nextTime() {
      double t = next < trace.size() ? trace.get(next).arrival() : Double.POSITIVE_INFINITY;
      if (!departures.isEmpty()) {
        t = Math.min(t, departures.peek().time);
      }
      return t;
    }

    private boolean release(double t) {
      boolean any = false;
      while (!departures.isEmpty() && departures.peek().time <= t) {
        Departure d = departures.poll();
        state.node(d.node).release(d.pod.id());
        if (d.pod.gang() != null) {
          state.gangs().ended(d.pod.gang().name(), d.pod.id());
        }
        any = true;
      }
      return any;
    }

    private void arrive(double t) {
      while (next < trace.size() && trace.get(next).arrival() <= t) {
        PodSpec pod = trace.get(next++);
        pending.add(pod);
        tally.arrived++;
        if (pod.gang() != null) {
          tally.gangs.arrived(pod.gang());
        }
      }
    }

    private void schedule(double t, int from) {
      Iterator<PodSpec> it = pending.listIterator(from);
      while (it.hasNext()) {
        PodSpec pod = it.next();
        Decision d = policy.place(pod, state, random);
        if (d instanceof Decision.Placed p) {
          start(pod, p.placement(), t);
          it.remove();
        } else if (d instanceof Decision.Rejected) {
          tally.turnedAway++;
          it.remove();
        }
      }
    }

    private void start(PodSpec pod, Placement p, double t) {
      NodeState node = state.node(p.node());
      node.take(pod.id(), p.deviceIds());
      // measured as the agent audits a pod: each device's nearest partner of the other kind
      Locality worst = node.node().index().pairing(p.gpuIds(), p.hcaIds());
      tally.started(t - pod.arrival(), worst.isWithin(pod.policy().alignment().worstAllowed()));
      if (pod.gang() != null) {
        Machine machine = node.node().index().machine();
        state.gangs().started(pod.gang().name(), pod.id(), RailSets.of(machine, p.plannedHcaIds()));
        tally.gangs.started(pod.gang(), RailSets.of(machine, p.hcaIds()));
      }
      departures.add(new Departure(t + pod.duration(), pod, p.node()));
    }

    private void expire(double t) {
      Iterator<PodSpec> it = pending.iterator();
      while (it.hasNext()) {
        if (it.next().arrival() + limits.maxWaitSeconds() <= t) {
          tally.turnedAway++;
          it.remove();
        }
      }
    }
  }
}
