package dev.tandem.kit.ops;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A daemon's ops listener: {@code /healthz}, optionally {@code /readyz}, and {@code /metrics}
 * (Prometheus text format) over HTTP.
 *
 * <p>{@code /healthz} is a liveness check: 200 while the daemon's event loop runs, with the
 * daemon's own state as the JSON body. {@code /readyz} answers 200 when the daemon says it is
 * ready, else 503 with the reason. {@code /metrics} scrapes the registry on a worker thread.
 */
public final class OpsServer {

  /** The content type of Prometheus' text exposition format. */
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final Vertx vertx;
  private final PrometheusMeterRegistry registry;
  private final Supplier<JsonObject> health;
  private final Supplier<Optional<String>> notReady;
  private HttpServer server;

  /**
   * @param health the body of {@code /healthz}, beside {@code "status": "ok"}
   * @param notReady why the daemon is not ready, empty when it is; null serves no {@code /readyz}
   */
  public OpsServer(
      Vertx vertx,
      PrometheusMeterRegistry registry,
      Supplier<JsonObject> health,
      Supplier<Optional<String>> notReady) {
    this.vertx = vertx;
    this.registry = registry;
    this.health = health;
    this.notReady = notReady;
  }

  /** Listens on all interfaces; completes with the bound port (useful with port 0 in tests). */
  public Future<Integer> listen(int port) {
    Router router = Router.router(vertx);
    router.get("/healthz").handler(this::healthz);
    if (notReady != null) {
      router.get("/readyz").handler(this::readyz);
    }
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
    JsonObject body = new JsonObject().put("status", "ok").mergeIn(health.get());
    json(ctx, 200, body);
  }

  private void readyz(RoutingContext ctx) {
    Optional<String> why = notReady.get();
    if (why.isEmpty()) {
      json(ctx, 200, new JsonObject().put("status", "ready"));
    } else {
      json(ctx, 503, new JsonObject().put("status", "not ready").put("reason", why.get()));
    }
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.encode());
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
