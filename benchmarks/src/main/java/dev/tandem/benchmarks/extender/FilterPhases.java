package dev.tandem.benchmarks.extender;

import dev.tandem.extender.http.ExtenderArgs;
import dev.tandem.extender.http.Replies;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeDirectory;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.Outcome;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.buffer.Buffer;
import java.util.Arrays;

/**
 * Where a warm filter's time goes, without HTTP: the request body kube-scheduler sends, decoded,
 * decided and answered in this thread, beside the floor's decode and answer of the same body.
 * Prints the median of each step over many requests. Run: {@code java -cp
 * benchmarks/target/benchmarks.jar dev.tandem.benchmarks.extender.FilterPhases [nodes] [requests]}
 */
public final class FilterPhases {

  private FilterPhases() {}

  public static void main(String[] args) {
    int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int requests = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
    ClusterState state = LoadCluster.build(nodes, 42).state();
    FilterVerb filter = new FilterVerb(new NodeEvaluator(1_000_000));
    // one writer each, as on the load harness's server: each keeps its own directory's names
    Replies filterReplies = new Replies();
    Replies floorReplies = new Replies();
    Buffer body =
        new SchedulerRequests(LoadCluster.names(state))
            .body(SchedulerRequests.head(SchedulerRequests.Shape.TYPICAL));
    long[][] t = new long[5][requests];
    long bytes = 0;
    for (int r = 0; r < requests; r++) {
      long t0 = System.nanoTime();
      ExtenderArgs filterArgs = ExtenderArgs.decode(body, state.directory());
      PodRequest pod = PodRequest.of(filterArgs.pod(), AlignmentPolicy.DEFAULT);
      long t1 = System.nanoTime();
      FilterVerdict verdict =
          filter.verdict(pod, filterArgs.candidates(), AllocationBudget.UNLIMITED);
      long t2 = System.nanoTime();
      bytes += filterReplies.filter(filterArgs, verdict).length();
      long t3 = System.nanoTime();
      ExtenderArgs floorArgs = ExtenderArgs.decode(body, NodeDirectory.empty());
      long t4 = System.nanoTime();
      bytes +=
          floorReplies
              .filter(
                  floorArgs, FilterVerdict.allPassed(floorArgs.candidates().size(), Outcome.PASSED))
              .length();
      long t5 = System.nanoTime();
      long[] step = {t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4};
      for (int i = 0; i < step.length; i++) {
        t[i][r] = step[i];
      }
    }
    System.out.printf(
        "%,d nodes, median of %,d warm requests (%,d answer bytes in all):%n",
        nodes, requests, bytes);
    System.out.printf(
        "  filter: decode %s, decide %s, write %s%n", median(t[0]), median(t[1]), median(t[2]));
    System.out.printf("  floor:  decode %s, write %s%n", median(t[3]), median(t[4]));
  }

  private static String median(long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return String.format("%,d µs", sorted[sorted.length / 2] / 1000);
  }
}
