package dev.tandem.extender.metrics;

import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.Outcome;
import dev.tandem.extender.verbs.PreemptOutcome;
import dev.tandem.extender.verbs.PreemptionResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The extender's Prometheus metrics. */
public final class ExtenderMetrics {

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, Timer> latency = new ConcurrentHashMap<>();
  private final Counter[] outcomes = new Counter[Outcome.values().length];
  private final Map<String, Counter> binds = new ConcurrentHashMap<>();
  private final Counter[] preemptOutcomes = new Counter[PreemptOutcome.values().length];
  private final Map<String, Counter> decisions = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> lastEvent = new ConcurrentHashMap<>();
  private final Counter unsatisfiableClaims;
  private final Counter gangRailsDiffer;
  private final Counter rehearsals;
  private final Clock clock;

  /** The metrics of the extender serving {@code cluster}: its gauges read the cluster's state. */
  public ExtenderMetrics(ClusterParts cluster) {
    this.clock = cluster.clock();
    for (Outcome o : Outcome.values()) {
      outcomes[o.ordinal()] =
          Counter.builder("tandem_extender_filter_nodes")
              .description("Nodes judged by filter, by outcome")
              .tag("outcome", o.label())
              .register(registry);
    }
    for (PreemptOutcome o : PreemptOutcome.values()) {
      preemptOutcomes[o.ordinal()] =
          Counter.builder("tandem_extender_preempt_nodes")
              .description("Nodes proposed by kube-scheduler for a preemption, by outcome")
              .tag("outcome", o.label())
              .register(registry);
    }
    for (String verb : List.of("filter", "prioritize")) {
      for (String thread : List.of("event_loop", "worker")) {
        decisions.put(
            verb + "/" + thread,
            Counter.builder("tandem_extender_decisions")
                .description("Filter and prioritize calls by the thread that decided them")
                .tag("verb", verb)
                .tag("thread", thread)
                .register(registry));
      }
    }
    unsatisfiableClaims =
        Counter.builder("tandem_extender_unsatisfiable_claims")
            .description("Claims of pending pods that no node can be given, each reported once")
            .register(registry);
    gangRailsDiffer =
        Counter.builder("tandem_extender_gang_rails_differ")
            .description(
                "GangRailsDiffer Events: a gang member on other rails than most of its gang's")
            .register(registry);
    rehearsals =
        Counter.builder("tandem_extender_standby_rehearsal_cycles")
            .description(
                "Filter and prioritize cycles this replica rehearsed as a standby, to start warm")
            .register(registry);
    Gauge.builder("tandem_extender_gangs_split", cluster.state(), s -> s.gangRails().splitGangs())
        .description("Gangs whose placed members are on more than one rail set now")
        .register(registry);
    Gauge.builder("tandem_extender_assumed_allocations", cluster.assumptions(), Assumptions::count)
        .description("Assumed plans holding devices until the agent reports them")
        .register(registry);
    Gauge.builder("tandem_extender_nodes", cluster.state(), ClusterState::size)
        .description("Nodes with a NodeTopology")
        .register(registry);
    Gauge.builder("tandem_extender_ready", cluster.readiness(), r -> r.ready() ? 1 : 0)
        .description("1 when informers synced and this replica leads")
        .register(registry);
  }

  /** Latency of one verb (filter, prioritize, bind, preempt). */
  public Timer verb(String verb) {
    return latency.computeIfAbsent(
        verb,
        v ->
            Timer.builder("tandem_extender_request")
                .description("Latency of scheduler extender calls")
                .tag("verb", v)
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(100_000))
                .maximumExpectedValue(Duration.ofSeconds(5))
                .register(registry));
  }

  public void filtered(FilterVerdict verdict) {
    int[] counts = verdict.counts();
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] > 0) {
        outcomes[i].increment(counts[i]);
      }
    }
  }

  /** A filter or prioritize call was decided on the event loop, or handed to a worker thread. */
  public void decided(String verb, boolean onEventLoop) {
    decisions.get(verb + "/" + (onEventLoop ? "event_loop" : "worker")).increment();
  }

  /** What became of each node a preemption proposed. */
  public void preempted(PreemptionResult result) {
    result.outcomes().values().forEach(o -> preemptOutcomes[o.ordinal()].increment());
  }

  public void bound(String result) {
    binds
        .computeIfAbsent(
            result,
            r ->
                Counter.builder("tandem_extender_binds")
                    .description("Bind calls by result")
                    .tag("result", r)
                    .register(registry))
        .increment();
  }

  /**
   * A pending pod's claim was reported as one no node can be given ({@code ClaimUnsatisfiable}).
   */
  public void unsatisfiableClaim() {
    unsatisfiableClaims.increment();
  }

  /** One GangRailsDiffer Event recorded. */
  public void gangRailsDiffer() {
    gangRailsDiffer.increment();
  }

  /** A standby rehearsal cycle run ({@code Rehearsal}). */
  public void rehearsed() {
    rehearsals.increment();
  }

  /** An informer delivered an event or a resync: its staleness restarts from zero. */
  public void informerEvent(String informer) {
    lastEvent
        .computeIfAbsent(
            informer,
            name -> {
              AtomicLong at = new AtomicLong(clock.millis());
              Gauge.builder(
                      "tandem_extender_informer_staleness_seconds",
                      at,
                      a -> (clock.millis() - a.get()) / 1000.0)
                  .description("Seconds since the informer's last event or resync")
                  .tag("informer", name)
                  .register(registry);
              return at;
            })
        .set(clock.millis());
  }

  public String scrape() {
    return registry.scrape();
  }
}
