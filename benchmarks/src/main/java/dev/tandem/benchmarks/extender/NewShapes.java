package dev.tandem.benchmarks.extender;

import dev.tandem.extender.http.ExtenderArgs;
import dev.tandem.extender.http.Replies;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.FreeState;
import dev.tandem.extender.state.NodeDirectory;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.Outcome;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import io.vertx.core.buffer.Buffer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * What a pod shape never seen before costs the filter, against the floor and against the same shape
 * once known: for each of the 512 shapes of {@link SchedulerRequests.Shape#all()}, in turn, its
 * first filter (decode, decide, write; no HTTP), its second, and the floor's decode and write of
 * the same body, all in this thread. Prints how many distinct free states the nodes share (a new
 * shape is decided once per state), the median and 90th percentile of each over the shapes, and how
 * often the allocator ran. Times are this thread's CPU time. Run: {@code java -cp
 * benchmarks/target/benchmarks.jar dev.tandem.benchmarks.extender.NewShapes [nodes] [rounds]}
 */
public final class NewShapes {

  /**
   * CPU time of this thread, not wall time: the machine is shared, and a preempted request would
   * count other processes' work.
   */
  private static final ThreadMXBean cpu = ManagementFactory.getThreadMXBean();

  private NewShapes() {}

  public static void main(String[] args) {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    ClusterState state = LoadCluster.build(nodes, 42).state();
    SchedulerRequests requests = new SchedulerRequests(LoadCluster.names(state));
    List<SchedulerRequests.Shape> shapes = SchedulerRequests.Shape.all();
    System.out.printf(
        "%,d nodes in %,d distinct free states; %d pod shapes, each new once per round%n",
        nodes, freeStates(state), shapes.size());
    for (int round = 0; round < rounds; round++) {
      // a fresh evaluator each round: every shape is new again, the JIT stays warm
      measure(state, requests, shapes, new NodeEvaluator(1_000_000), round);
    }
  }

  private static void measure(
      ClusterState state,
      SchedulerRequests requests,
      List<SchedulerRequests.Shape> shapes,
      NodeEvaluator evaluator,
      int round) {
    FilterVerb filter = new FilterVerb(evaluator);
    Replies filterReplies = new Replies();
    Replies floorReplies = new Replies();
    long[] first = new long[shapes.size()];
    long[] second = new long[shapes.size()];
    long[] floor = new long[shapes.size()];
    long[] again = new long[shapes.size()];
    List<Buffer> bodies =
        shapes.stream().map(s -> requests.body(SchedulerRequests.head(s))).toList();
    for (int s = 0; s < shapes.size(); s++) {
      Buffer body = bodies.get(s);
      first[s] = filter(state, filter, filterReplies, body);
      second[s] = filter(state, filter, filterReplies, body);
      long t0 = cpu.getCurrentThreadCpuTime();
      ExtenderArgs floorArgs = ExtenderArgs.decode(body, NodeDirectory.empty());
      floorReplies.filter(
          floorArgs, FilterVerdict.allPassed(floorArgs.candidates().size(), Outcome.PASSED));
      floor[s] = cpu.getCurrentThreadCpuTime() - t0;
    }
    // every shape once more, in turn: seen before, but not by the request just before
    for (int s = 0; s < shapes.size(); s++) {
      again[s] = filter(state, filter, filterReplies, bodies.get(s));
    }
    System.out.printf(
        "round %d: new shape %s, same shape again %s, known shapes in turn %s, floor %s (median /"
            + " p90); new/floor %s, again/floor %s, in turn/floor %s;"
            + " allocator runs cached %,d (%,.0f per new shape)%n",
        round + 1,
        quantiles(first),
        quantiles(second),
        quantiles(again),
        quantiles(floor),
        ratio(first, floor),
        ratio(second, floor),
        ratio(again, floor),
        evaluator.size(),
        evaluator.size() / (double) shapes.size());
  }

  /** Distinct shared free states of the nodes: what a new shape is decided for. */
  private static long freeStates(ClusterState state) {
    CandidateNodes all = CandidateNodes.of(state.directory(), LoadCluster.names(state));
    Set<FreeState> states = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < all.size(); i++) {
      states.add(all.cell(i).state());
    }
    return states.size();
  }

  private static long filter(ClusterState state, FilterVerb filter, Replies replies, Buffer body) {
    long t0 = cpu.getCurrentThreadCpuTime();
    ExtenderArgs args = ExtenderArgs.decode(body, state.directory());
    PodRequest pod = PodRequests.DEFAULT.of(args.pod());
    FilterVerdict verdict = filter.verdict(pod, args.candidates(), AllocationBudget.UNLIMITED);
    replies.filter(args, verdict);
    return cpu.getCurrentThreadCpuTime() - t0;
  }

  private static String quantiles(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return String.format(
        "%,d / %,d µs", sorted[sorted.length / 2] / 1000, sorted[sorted.length * 9 / 10] / 1000);
  }

  /** The median of the per-shape ratios. */
  private static String ratio(long[] a, long[] b) {
    double[] r = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      r[i] = a[i] / (double) b[i];
    }
    Arrays.sort(r);
    return String.format("%.2f× (p90 %.2f×)", r[r.length / 2], r[r.length * 9 / 10]);
  }
}
