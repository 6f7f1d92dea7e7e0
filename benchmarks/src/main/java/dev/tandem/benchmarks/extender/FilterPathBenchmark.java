package dev.tandem.benchmarks.extender;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PrioritizeVerb;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Tandem's own share of a filter request, without HTTP and JSON: the per-node decision for a burst
 * of one pod shape over every node of the load cluster (answers cached, as in a burst). The names
 * are fresh strings each call, as the request decoder makes them. Reports µs per request; divide by
 * the node count for the cost per node.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgs = {"-XX:+UseSerialGC", "-Xmx1g"})
public class FilterPathBenchmark {

  @Param({"1000", "5000", "15000"})
  int nodes;

  private ClusterState state;
  private FilterVerb filter;
  private PrioritizeVerb prioritize;
  private PodRequest pod;
  private List<String> names;
  private List<String> fresh;

  @Setup
  public void cluster() {
    state = LoadCluster.build(nodes, 42).state();
    NodeEvaluator evaluator = new NodeEvaluator(1_000_000);
    filter = new FilterVerb(evaluator);
    prioritize = new PrioritizeVerb(evaluator);
    pod =
        PodRequest.of(
            SchedulerRequests.pod(SchedulerRequests.Shape.TYPICAL), AlignmentPolicy.DEFAULT);
    names = LoadCluster.names(state);
  }

  @Setup(Level.Invocation)
  public void decodedNames() {
    fresh = new ArrayList<>(names.size());
    for (String n : names) {
      fresh.add(new String(n.toCharArray()));
    }
  }

  @Benchmark
  public FilterVerdict filter() {
    return filter.verdict(
        pod, CandidateNodes.of(state.directory(), fresh), AllocationBudget.UNLIMITED);
  }

  @Benchmark
  public int[] prioritize() {
    return prioritize.scores(
        pod, CandidateNodes.of(state.directory(), fresh), AllocationBudget.UNLIMITED);
  }
}
