package dev.tandem.agent.ops;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Supplier;

/**
 * {@code /healthz} and {@code /metrics} (Prometheus text format) over HTTP.
 *
 * <p>{@code /healthz} is a liveness check: it answers 200 while the agent's event loop runs, with
 * the publishing state in the body. An unreachable API server does not make it fail (restarting the
 * agent would not help); alert on {@code tandem_nodetopology_publish_failures} instead.
 */
public final class OpsServer {

  static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final Supplier<Health> health;
  private HttpServer server;

  public OpsServer(Vertx vertx, PrometheusMeterRegistry registry, Supplier<Health> health) {
    this.vertx = vertx;
    this.registry = registry;
    this.health = health;
  }

  /** Listens on all interfaces; completes with the bound port (useful with port 0 in tests). */
  public Future<Integer> listen(int port) {
    Router router = Router.router(vertx);
    router.get("/healthz").handler(this::healthz);
    router.get("/metrics").handler(this::metrics);
    return vertx
        .createHttpServer()
        .requestHandler(router)
        .listen(port)
        .map(
            s -> {
              server = s;
              return s.actualPort();
            });
  }

  public Future<Void> close() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void healthz(RoutingContext ctx) {
    Health h = health.get();
    JsonObject body =
        new JsonObject()
            .put("status", "ok")
            .put("lastPublished", h.lastPublished() == null ? null : h.lastPublished().toString())
            .put("lastError", h.lastError())
            .put("auditing", h.auditing());
    ctx.response().putHeader("content-type", "application/json").end(body.encode());
  }

  private void metrics(RoutingContext ctx) {
    vertx
        .executeBlocking(registry::scrape, false)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                ctx.response().putHeader("content-type", PROMETHEUS_TEXT).end(ar.result());
              } else {
                ctx.fail(ar.cause());
              }
            });
  }
}
