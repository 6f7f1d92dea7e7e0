package dev.tandem.extender.http;

import dev.tandem.extender.inspect.Inspection;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.Readiness;
import dev.tandem.topology.render.TopologyMatrix;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.Callable;

/**
 * {@code /topology/...}, {@code /healthz}, {@code /readyz}, {@code /metrics}. The topology answers
 * are built and encoded on a worker thread ({@code /topology/nodes} at 15,000 nodes is megabytes),
 * so the event loop keeps serving the scheduler verbs meanwhile.
 */
public final class InspectionRoutes {

  private final Vertx vertx;
  private final ClusterState state;
  private final Readiness readiness;
  private final Inspection inspection;
  private final ExtenderMetrics metrics;

  public InspectionRoutes(
      Vertx vertx,
      ClusterState state,
      Readiness readiness,
      Inspection inspection,
      ExtenderMetrics metrics) {
    this.vertx = vertx;
    this.state = state;
    this.readiness = readiness;
    this.inspection = inspection;
    this.metrics = metrics;
  }

  public void mount(Router router) {
    router
        .get("/topology/nodes")
        .handler(ctx -> offLoop(ctx, () -> answer(200, inspection.nodes())));
    router.get("/topology/nodes/:node").handler(this::node);
    router.get("/topology/nodes/:node/matrix").handler(this::matrix);
    router.get("/healthz").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "ok")));
    router.get("/readyz").handler(this::ready);
    router
        .get("/metrics")
        .handler(
            ctx ->
                ctx.response()
                    .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                    .end(metrics.scrape()));
  }

  private void node(RoutingContext ctx) {
    String name = ctx.pathParam("node");
    offLoop(
        ctx,
        () -> {
          JsonObject node = inspection.node(name);
          return node == null ? answer(404, unknown(name)) : answer(200, node);
        });
  }

  private void matrix(RoutingContext ctx) {
    String name = ctx.pathParam("node");
    offLoop(
        ctx,
        () -> {
          NodeEntry node = state.node(name);
          return node == null
              ? answer(404, unknown(name))
              : new Answer(
                  200,
                  "text/plain; charset=utf-8",
                  Buffer.buffer(TopologyMatrix.render(node.machine())));
        });
  }

  /** A status, content type and encoded body, built on a worker thread. */
  private record Answer(int status, String type, Buffer body) {}

  private static Answer answer(int status, JsonObject body) {
    return new Answer(status, "application/json", body.toBuffer());
  }

  private void offLoop(RoutingContext ctx, Callable<Answer> work) {
    vertx
        .executeBlocking(work, false)
        .onComplete(
            done -> {
              if (done.failed()) {
                ctx.fail(done.cause());
              } else if (!ctx.response().closed()) {
                Answer a = done.result();
                ctx.response()
                    .setStatusCode(a.status())
                    .putHeader("content-type", a.type())
                    .end(a.body());
              }
            });
  }

  private void ready(RoutingContext ctx) {
    JsonObject body =
        new JsonObject()
            .put("ready", readiness.ready())
            .put("synced", readiness.synced())
            .put("leader", readiness.leader())
            .put("degraded", readiness.degraded().isPresent())
            .put("nodes", state.size());
    readiness.degraded().ifPresent(why -> body.put("reason", why));
    json(ctx, readiness.ready() ? 200 : 503, body);
  }

  private static JsonObject unknown(String name) {
    return new JsonObject()
        .put(
            "error",
            "no NodeTopology for node '"
                + name
                + "' (unknown node, or the tandem agent is not running on it)");
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.toBuffer());
  }
}
