package dev.tandem.extender.standby;

import dev.tandem.extender.http.ExtenderArgs;
import dev.tandem.extender.http.Replies;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.Readiness;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A standby's rehearsal of kube-scheduler's cycle. While this replica's informers are synced and
 * another replica holds the lease, it runs up to {@code cycles} cycles, each a filter request over
 * up to {@value #MAX_NAMES} of its own nodes and a prioritize request over those that passed, as
 * kube-scheduler sends them: the body decoded by the routes' decoder, the pod read by the routes'
 * {@link PodRequests}, judged by the very verb instances the routes use (first within the event
 * loop's allocation budget, then without, as the routes decide), and the answer written by the
 * routes' writer. By then the JIT has compiled what the leader's requests run, so a standby that
 * takes the lease answers at its warm speed from its first request.
 *
 * <p>It changes nothing another replica or kube-scheduler could see: no pod is remembered for a
 * bind, no plan assumed, nothing written to the API server, and no verb metric counted (only its
 * own cycle counter). What it leaves behind is what any filter leaves: the verdicts the verbs
 * memoise per node state and pod shape, which are right for any pod of that shape.
 *
 * <p>Its CPU is bounded: one cycle at a time on a worker thread, and after each a pause as long as
 * the cycle took, so it takes at most half a core; after {@code cycles} cycles it stops for good
 * (compiled code stays: the JVM unloads it only with its classes). It waits while this replica
 * leads or has not synced, and goes on where it stopped if the replica loses the lease again.
 */
public final class Rehearsal {

  private static final Logger LOG = LoggerFactory.getLogger(Rehearsal.class);

  /** Node names per request: kube-scheduler sends the nodes its own filters passed. */
  static final int MAX_NAMES = 1000;

  /** How long a replica that leads, or has not synced, waits before it looks again. */
  static final long LOOK_AGAIN_MILLIS = 1000;

  /** Cycles between two readings of the node list. */
  private static final int NAMES_EVERY = 64;

  private final Vertx vertx;
  private final ClusterState state;
  private final Readiness readiness;
  private final PodRequests requests;
  private final FilterVerb filter;
  private final PrioritizeVerb prioritize;
  private final ExtenderMetrics metrics;
  private final int cycles;
  private final RehearsalPods pods;
  private final Replies replies = new Replies();
  private List<String> names = List.of();
  private volatile int done;
  private long began;

  /**
   * @param requests, filter, prioritize the instances the routes use
   * @param cycles how many cycles to run in all; 0 runs none
   */
  public Rehearsal(
      Vertx vertx,
      ClusterState state,
      Readiness readiness,
      PodRequests requests,
      FilterVerb filter,
      PrioritizeVerb prioritize,
      ExtenderMetrics metrics,
      int cycles) {
    this.vertx = vertx;
    this.state = state;
    this.readiness = readiness;
    this.requests = requests;
    this.filter = filter;
    this.prioritize = prioritize;
    this.metrics = metrics;
    this.cycles = cycles;
    this.pods = new RehearsalPods(requests.resources());
  }

  /** Starts looking for the moment to rehearse; returns at once. */
  public void start() {
    vertx.runOnContext(v -> next());
  }

  /** Cycles run so far. */
  public int done() {
    return done;
  }

  private void next() {
    if (done >= cycles) {
      return;
    }
    if (!readiness.synced() || readiness.leader() || state.size() == 0) {
      vertx.setTimer(LOOK_AGAIN_MILLIS, id -> next());
      return;
    }
    if (done == 0) {
      began = System.nanoTime();
      LOG.info(
          "standby: rehearsing kube-scheduler's filter and prioritize ({} cycles over {} nodes)"
              + " while another replica holds the lease",
          cycles,
          state.size());
    }
    long start = System.nanoTime();
    int n = done;
    vertx
        .executeBlocking(() -> cycle(n), false)
        .onSuccess(passed -> cycled(start))
        .onFailure(
            e ->
                LOG.warn(
                    "standby: rehearsal cycle {} failed; the rehearsal stops and this replica will"
                        + " start cold if it takes the lease (please report this)",
                    n,
                    e));
  }

  private void cycled(long start) {
    done++;
    metrics.rehearsed();
    if (done == cycles) {
      LOG.info(
          "standby: rehearsal done, {} cycles in {} s; its filter and prioritize are compiled",
          cycles,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began));
      return;
    }
    long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    vertx.setTimer(Math.max(1, spent), id -> next());
  }

  /** One filter and one prioritize for the {@code n}th rehearsal pod; how many nodes passed. */
  int cycle(int n) {
    if (n % NAMES_EVERY == 0 || names.isEmpty()) {
      names = state.nodes().stream().map(NodeEntry::name).toList();
    }
    JsonObject pod = pods.pod(n);
    List<String> asked = window(names, n);
    ExtenderArgs args = ExtenderArgs.decode(body(pod, asked), state.directory());
    PodRequest request = requests.of(args.pod());
    FilterVerdict verdict = decided(budget -> filter.verdict(request, args.candidates(), budget));
    replies.filter(args, verdict);
    List<String> passed = new ArrayList<>();
    for (int i = 0; i < asked.size(); i++) {
      if (verdict.passed()[i]) {
        passed.add(asked.get(i));
      }
    }
    if (!passed.isEmpty()) {
      ExtenderArgs again = ExtenderArgs.decode(body(pod, passed), state.directory());
      int[] scores = decided(budget -> prioritize.scores(request, again.candidates(), budget));
      replies.priorities(again.candidates(), scores);
    }
    return passed.size();
  }

  /** Up to {@value #MAX_NAMES} names, a different window each cycle. */
  static List<String> window(List<String> names, int n) {
    if (names.size() <= MAX_NAMES) {
      return names;
    }
    int from = (int) ((long) n * MAX_NAMES % names.size());
    List<String> out = new ArrayList<>(MAX_NAMES);
    for (int i = 0; i < MAX_NAMES; i++) {
      out.add(names.get((from + i) % names.size()));
    }
    return out;
  }

  private static Buffer body(JsonObject pod, List<String> names) {
    return new JsonObject()
        .put("Pod", pod)
        .putNull("Nodes")
        .put("NodeNames", new JsonArray(names))
        .toBuffer();
  }

  /** As the routes decide: within the event loop's budget, else without one. */
  private static <T> T decided(IntFunction<T> decision) {
    T quick = decision.apply(AllocationBudget.EVENT_LOOP);
    return quick != null ? quick : decision.apply(AllocationBudget.UNLIMITED);
  }
}
