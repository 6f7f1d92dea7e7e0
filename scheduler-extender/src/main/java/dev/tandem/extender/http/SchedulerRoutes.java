package dev.tandem.extender.http;

import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.AllocationBudget;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.InvalidPreemption;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PreemptVerb;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST <prefix>/filter|prioritize|bind|preempt}: kube-scheduler's extender protocol. Every
 * request kube-scheduler could send gets 200 (errors go in {@code Error}); garbage gets 400.
 */
public final class SchedulerRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulerRoutes.class);

  /** Remembered in place of a pod that requests neither resource: its bind needs no plan. */
  private static final JsonObject PLAIN_POD = new JsonObject();

  private final Vertx vertx;
  private final ClusterState state;
  private final RecentPods pods;
  private final FilterVerb filterVerb;
  private final PrioritizeVerb prioritizeVerb;
  private final BindVerb bindVerb;
  private final PreemptVerb preemptVerb;
  private final PodRequests requests;
  private final ExtenderMetrics metrics;
  private final Replies replies = new Replies();

  public SchedulerRoutes(
      Vertx vertx,
      ClusterState state,
      RecentPods pods,
      FilterVerb filterVerb,
      PrioritizeVerb prioritizeVerb,
      BindVerb bindVerb,
      PreemptVerb preemptVerb,
      PodRequests requests,
      ExtenderMetrics metrics) {
    this.vertx = vertx;
    this.state = state;
    this.pods = pods;
    this.filterVerb = filterVerb;
    this.prioritizeVerb = prioritizeVerb;
    this.bindVerb = bindVerb;
    this.preemptVerb = preemptVerb;
    this.requests = requests;
    this.metrics = metrics;
  }

  public void mount(Router router, String prefix, long bodyLimit) {
    mountReading(router, prefix, bodyLimit);
    String base = prefix.equals("/") ? "" : prefix;
    RequestHeaders headers = new RequestHeaders();
    BodyHandler body = BodyHandler.create(false).setBodyLimit(bodyLimit);
    router.post(base + "/bind").handler(headers).handler(body).handler(this::bind);
    router.post(base + "/preempt").handler(headers).handler(body).handler(this::preempt);
  }

  /** Only the verbs that change nothing: filter and prioritize. */
  public void mountReading(Router router, String prefix, long bodyLimit) {
    String base = prefix.equals("/") ? "" : prefix;
    RequestHeaders headers = new RequestHeaders();
    BodyHandler body = BodyHandler.create(false).setBodyLimit(bodyLimit);
    router.post(base + "/filter").handler(headers).handler(body).handler(this::filter);
    router.post(base + "/prioritize").handler(headers).handler(body).handler(this::prioritize);
  }

  /**
   * Filter and prioritize as the verbs port serves them, over their own pods and metrics, which no
   * one reads: what the standby's rehearsal sends its requests to ({@link #mountReading} only;
   * there is no bind or preempt).
   */
  public static SchedulerRoutes rehearsal(
      Vertx vertx,
      ClusterState state,
      RecentPods pods,
      FilterVerb filterVerb,
      PrioritizeVerb prioritizeVerb,
      PodRequests requests,
      ExtenderMetrics metrics) {
    return new SchedulerRoutes(
        vertx, state, pods, filterVerb, prioritizeVerb, null, null, requests, metrics);
  }

  private void filter(RoutingContext ctx) {
    Timer.Sample sample = Timer.start();
    ExtenderArgs args = ExtenderArgs.decode(ctx.body().buffer(), state.directory());
    PodRequest pod = podOf(args);
    filterAnswer(pod, args)
        .onSuccess(
            answer -> {
              reply(ctx, answer);
              sample.stop(metrics.verb("filter"));
            })
        .onFailure(
            e -> {
              LOG.warn("filter of {} failed", pod.pod(), e);
              reply(ctx, Replies.filterError("tandem extender: filter failed: " + e));
            });
  }

  private void prioritize(RoutingContext ctx) {
    Timer.Sample sample = Timer.start();
    ExtenderArgs args = ExtenderArgs.decode(ctx.body().buffer(), state.directory());
    PodRequest pod = podOf(args);
    prioritizeAnswer(pod, args)
        .onSuccess(
            answer -> {
              reply(ctx, answer);
              sample.stop(metrics.verb("prioritize"));
            })
        .onFailure(
            e -> {
              LOG.warn("prioritize of {} failed", pod.pod(), e);
              reply(ctx, replies.priorities(args.candidates(), new int[args.candidates().size()]));
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

  private void bind(RoutingContext ctx) {
    Timer.Sample sample = Timer.start();
    JsonObject args = JsonBodies.object(ctx.body().buffer());
    PodRef ref =
        new PodRef(field(args, "PodNamespace"), field(args, "PodName"), field(args, "PodUID"));
    String node = field(args, "Node");
    bindVerb
        .bind(ref, node)
        .onComplete(
            done -> {
              String error =
                  done.succeeded() ? done.result().error() : String.valueOf(done.cause());
              metrics.bound(done.succeeded() ? done.result().result() : "api_error");
              if (!error.isEmpty()) {
                LOG.debug("bind {} to {}: {}", ref, node, error);
              } else {
                pods.forget(ref.uid());
              }
              reply(ctx, Replies.binding(error));
              sample.stop(metrics.verb("bind"));
            });
  }

  /**
   * Decided on a worker thread: preemption is rare, and a node's victim search may run the
   * allocator a few hundred times. Arguments that contradict the extender's state get 400.
   */
  private void preempt(RoutingContext ctx) {
    Timer.Sample sample = Timer.start();
    PreemptionArgs args = PreemptionArgs.decode(ctx.body().buffer());
    PodRequest pod = podOf(args.pod(), "ExtenderPreemptionArgs.Pod");
    vertx
        .executeBlocking(() -> preemptVerb.preempt(pod, args.proposals()), false)
        .onSuccess(
            result -> {
              metrics.preempted(result);
              reply(ctx, Replies.preemption(result));
              sample.stop(metrics.verb("preempt"));
            })
        .onFailure(
            e -> {
              if (e instanceof InvalidPreemption) {
                LOG.info("preempt of {} refused: {}", pod.pod(), e.getMessage());
                ctx.fail(new BadRequest(e.getMessage()));
              } else {
                ctx.fail(e);
              }
            });
  }

  private PodRequest podOf(ExtenderArgs args) {
    PodRequest pod = podOf(args.pod(), "ExtenderArgs.Pod");
    pods.remember(pod.pod().uid(), pod.interested() ? args.pod() : PLAIN_POD);
    return pod;
  }

  private PodRequest podOf(JsonObject json, String what) {
    try {
      return requests.of(json);
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw new BadRequest(what + " is not a v1.Pod: " + e.getMessage());
    }
  }

  private static String field(JsonObject args, String key) {
    Object v = args.getValue(key);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new BadRequest("ExtenderBindingArgs." + key + " must be a non-empty string");
    }
    return s;
  }

  /**
   * Answers uncompressed even when the scheduler accepts gzip: Go's client takes either, and on
   * loopback or a cluster network compressing costs more time than it saves ({@code identity} makes
   * Vert.x skip compression and drop the header).
   */
  private static void reply(RoutingContext ctx, Buffer body) {
    ctx.response()
        .putHeader("content-type", "application/json")
        .putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY)
        .end(body);
  }
}
