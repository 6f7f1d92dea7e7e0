package dev.tandem.extender.http;

import dev.tandem.extender.inspect.Inspection;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.render.TopologyMatrix;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /topology/...}, {@code /healthz}, {@code /readyz}, {@code /metrics}. */
final class InspectionRoutes {

  private final ClusterState state;
  private final Inspection inspection;
  private final ExtenderMetrics metrics;

  InspectionRoutes(ClusterState state, Inspection inspection, ExtenderMetrics metrics) {
    this.state = state;
    this.inspection = inspection;
    this.metrics = metrics;
  }

  void mount(Router router) {
    router.get("/topology/nodes").handler(ctx -> json(ctx, 200, inspection.nodes()));
    router.get("/topology/nodes/:node").handler(this::node);
    router.get("/topology/nodes/:node/matrix").handler(this::matrix);
    router.get("/healthz").handler(ctx -> json(ctx, 200, new JsonObject().put("status", "ok")));
    router.get("/readyz").handler(this::ready);
    router.get("/metrics").handler(ctx -> ctx.response()
        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
  }

  private void node(RoutingContext ctx) {
    String name = ctx.pathParam("node");
    JsonObject node = inspection.node(name);
    if (node == null) {
      json(ctx, 404, unknown(name));
    } else {
      json(ctx, 200, node);
    }
  }

  private void matrix(RoutingContext ctx) {
    String name = ctx.pathParam("node");
    NodeEntry node = state.node(name);
    if (node == null) {
      json(ctx, 404, unknown(name));
      return;
    }
    ctx.response().putHeader("content-type", "text/plain; charset=utf-8")
        .end(TopologyMatrix.render(node.machine()));
  }

  private void ready(RoutingContext ctx) {
    JsonObject body = new JsonObject().put("ready", state.ready()).put("synced", state.synced())
        .put("leader", state.leader()).put("nodes", state.size());
    json(ctx, state.ready() ? 200 : 503, body);
  }

  private static JsonObject unknown(String name) {
    return new JsonObject().put("error", "no NodeTopology for node '" + name
        + "' (unknown node, or the tandem agent is not running on it)");
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json")
        .end(body.toBuffer());
  }
}
