package dev.tandem.extender.http;

import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST <prefix>/filter|prioritize}: the verbs of kube-scheduler's extender protocol that
 * change nothing in the cluster, answered as {@link SchedulerRoutes} says. The verbs port mounts
 * them beside bind and preempt; a standby's rehearsal listener mounts them alone, over pods and
 * metrics of its own.
 */
public final class ReadingRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(ReadingRoutes.class);

  /** Remembered in place of a pod that requests neither resource: its bind needs no plan. */
  private static final JsonObject PLAIN_POD = new JsonObject();

  private final Vertx vertx;
  private final ClusterState state;
  private final RecentPods pods;
  private final FilterVerb filterVerb;
  private final PrioritizeVerb prioritizeVerb;
  private final PodRequests requests;
  private final ExtenderMetrics metrics;
  private final Replies replies = new Replies();

  /**
   * @param pods where each pod filter and prioritize see is remembered, for its bind
   * @param metrics where filter and prioritize count their answers and times
   */
  public ReadingRoutes(
      Vertx vertx,
      ClusterState state,
      RecentPods pods,
      FilterVerb filterVerb,
      PrioritizeVerb prioritizeVerb,
      PodRequests requests,
      ExtenderMetrics metrics) {
    this.vertx = vertx;
    this.state = state;
    this.pods = pods;
    this.filterVerb = filterVerb;
    this.prioritizeVerb = prioritizeVerb;
    this.requests = requests;
    this.metrics = metrics;
  }

  public void mount(Router router, String prefix, long bodyLimit) {
    VerbRoute.post(router, prefix, bodyLimit, "/filter", this::filter);
    VerbRoute.post(router, prefix, bodyLimit, "/prioritize", this::prioritize);
  }

  private void filter(RoutingContext ctx) {
    answer(
        ctx,
        "filter",
        this::filterAnswer,
        (args, e) -> Replies.filterError("tandem extender: filter failed: " + e));
  }

  /** A prioritize that fails scores every node 0, favouring none. */
  private void prioritize(RoutingContext ctx) {
    answer(
        ctx,
        "prioritize",
        this::prioritizeAnswer,
        (args, e) -> replies.priorities(args.candidates(), new int[args.candidates().size()]));
  }

  /**
   * Decodes the body, remembers its pod and sends the verb's answer, timed; or, when the verb
   * fails, logs why and sends {@code failed}'s answer instead (kube-scheduler gets a 200 either
   * way).
   */
  private void answer(
      RoutingContext ctx,
      String verb,
      BiFunction<PodRequest, ExtenderArgs, Future<Buffer>> answer,
      BiFunction<ExtenderArgs, Throwable, Buffer> failed) {
    Timer.Sample sample = Timer.start();
    ExtenderArgs args = ExtenderArgs.decode(ctx.body().buffer(), state.directory());
    PodRequest pod = podOf(args);
    answer
        .apply(pod, args)
        .onSuccess(
            body -> {
              VerbRoute.reply(ctx, body);
              sample.stop(metrics.verb(verb));
            })
        .onFailure(
            e -> {
              LOG.warn("{} of {} failed", verb, pod.pod(), e);
              VerbRoute.reply(ctx, failed.apply(args, e));
            });
  }

  private Future<Buffer> filterAnswer(PodRequest pod, ExtenderArgs args) {
    return decide(
        "filter",
        budget -> filterVerb.verdict(pod, args.candidates(), budget),
        verdict -> {
          metrics.filtered(verdict);
          return replies.filter(args, verdict);
        });
  }

  private Future<Buffer> prioritizeAnswer(PodRequest pod, ExtenderArgs args) {
    return decide(
        "prioritize",
        budget -> prioritizeVerb.scores(pod, args.candidates(), budget),
        scores -> replies.priorities(args.candidates(), scores));
  }

  /**
   * Decided on the event loop while few nodes need the allocator (a burst of one pod shape); else
   * on a worker thread, so that a new shape at thousands of nodes does not hold the event loop.
   *
   * @param decision the verb's decision within an allocation budget; null when over it
   */
  private <T> Future<Buffer> decide(
      String verb, IntFunction<T> decision, Function<T, Buffer> reply) {
    try {
      T quick = decision.apply(AllocationBudget.EVENT_LOOP);
      metrics.decided(verb, quick != null);
      if (quick != null) {
        return Future.succeededFuture(reply.apply(quick));
      }
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return vertx.executeBlocking(
        () -> reply.apply(decision.apply(AllocationBudget.UNLIMITED)), false);
  }

  private PodRequest podOf(ExtenderArgs args) {
    PodRequest pod = VerbRoute.pod(requests, args.pod(), "ExtenderArgs.Pod");
    pods.remember(pod.pod().uid(), pod.interested() ? args.pod() : PLAIN_POD);
    return pod;
  }
}
