package dev.tandem.extender.http;

import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.InvalidPreemption;
import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PreemptVerb;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST <prefix>/filter|prioritize|bind|preempt}: kube-scheduler's extender protocol, as the
 * verbs port serves it. Every request kube-scheduler could send gets 200 (errors go in {@code
 * Error}); garbage gets 400. Filter and prioritize are its {@link ReadingRoutes}; bind and preempt
 * are here, the verbs whose answers change the cluster (bind writes the binding; kube-scheduler
 * evicts the victims preempt names).
 */
public final class SchedulerRoutes {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulerRoutes.class);

  private final ReadingRoutes reading;
  private final Vertx vertx;
  private final RecentPods pods;
  private final BindVerb bindVerb;
  private final PreemptVerb preemptVerb;
  private final PodRequests requests;
  private final ExtenderMetrics metrics;

  /**
   * @param pods the pods filter and prioritize remember, and bind forgets once bound
   */
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
    this.reading =
        new ReadingRoutes(vertx, state, pods, filterVerb, prioritizeVerb, requests, metrics);
    this.vertx = vertx;
    this.pods = pods;
    this.bindVerb = bindVerb;
    this.preemptVerb = preemptVerb;
    this.requests = requests;
    this.metrics = metrics;
  }

  public void mount(Router router, String prefix, long bodyLimit) {
    reading.mount(router, prefix, bodyLimit);
    VerbRoute.post(router, prefix, bodyLimit, "/bind", this::bind);
    VerbRoute.post(router, prefix, bodyLimit, "/preempt", this::preempt);
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
              VerbRoute.reply(ctx, Replies.binding(error));
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
    PodRequest pod = VerbRoute.pod(requests, args.pod(), "ExtenderPreemptionArgs.Pod");
    vertx
        .executeBlocking(() -> preemptVerb.preempt(pod, args.proposals()), false)
        .onSuccess(
            result -> {
              metrics.preempted(result);
              VerbRoute.reply(ctx, Replies.preemption(result));
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

  private static String field(JsonObject args, String key) {
    Object v = args.getValue(key);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new BadRequest("ExtenderBindingArgs." + key + " must be a non-empty string");
    }
    return s;
  }
}
