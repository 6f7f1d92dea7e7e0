package dev.tandem.extender.http;

import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.inspect.Inspection;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's HTTP server: scheduler verbs, inspection API, {@code /ui}, health and metrics.
 * Stable entry for tests, the demo, the UI test and the load harness: {@code
 * ExtenderServer.start(vertx, config, state)}.
 */
public final class ExtenderServer {

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderServer.class);

  private ExtenderServer() {}

  public static Future<HttpServer> start(Vertx vertx, ExtenderConfig config, ClusterState state) {
    return start(vertx, config, state, new ExtenderMetrics(state));
  }

  public static Future<HttpServer> start(
      Vertx vertx, ExtenderConfig config, ClusterState state, ExtenderMetrics metrics) {
    Router router = router(vertx, config, state, metrics);
    long sweep = Math.max(1000, Math.min(10_000, config.assumedTtl().toMillis() / 4));
    vertx.setPeriodic(sweep, id -> state.expire());
    return vertx
        .createHttpServer(options(config))
        .requestHandler(router)
        .listen(config.port(), config.host())
        .onSuccess(
            s -> LOG.info("scheduler extender listening on {}:{}", config.host(), s.actualPort()));
  }

  /** The routes, without a server: for tests that mount them elsewhere. */
  public static Router router(
      Vertx vertx, ExtenderConfig config, ClusterState state, ExtenderMetrics metrics) {
    NodeEvaluator evaluator = new NodeEvaluator(config.cacheSize());
    BindVerb bind = new BindVerb(state, config.defaultPolicy(), config.assumedTtl());
    Router router = Router.router(vertx);
    new SchedulerRoutes(
            vertx,
            state,
            new FilterVerb(evaluator),
            new PrioritizeVerb(evaluator),
            bind,
            config.defaultPolicy(),
            metrics)
        .mount(router, config.prefix(), config.bodyLimit());
    new InspectionRoutes(vertx, state, new Inspection(state, evaluator), metrics).mount(router);
    router.get("/").handler(ctx -> redirect(ctx, "/ui/"));
    router
        .get("/ui")
        .handler(
            ctx -> {
              if (ctx.request().path().equals("/ui")) {
                redirect(ctx, "/ui/");
              } else {
                ctx.next();
              }
            });
    router.route("/ui/*").handler(StaticHandler.create("webroot/ui").setCachingEnabled(false));
    router
        .route()
        .last()
        .handler(
            ctx ->
                InspectionRoutes.json(
                    ctx,
                    404,
                    new JsonObject()
                        .put(
                            "error",
                            "no route " + ctx.request().method() + " " + ctx.request().path())));
    router.route().failureHandler(ExtenderServer::failure);
    return router;
  }

  private static void failure(RoutingContext ctx) {
    Throwable e = ctx.failure();
    int status = ctx.statusCode();
    String message;
    if (e instanceof BadRequest) {
      status = 400;
      message = e.getMessage();
    } else if (status == 413) {
      status = 400;
      message =
          "request body over the body limit (raise --body-limit if kube-scheduler sends more)";
    } else if (status == 405 || status == 404 || status == 400) {
      message = "cannot serve " + ctx.request().method() + " " + ctx.request().path();
    } else {
      LOG.warn("{} {} failed", ctx.request().method(), ctx.request().path(), e);
      status = 500;
      message = "internal error: " + e;
    }
    if (!ctx.response().ended() && !ctx.response().headWritten()) {
      ctx.response()
          .setStatusCode(status)
          .putHeader("content-type", "application/json")
          .end(new JsonObject().put("error", message).toBuffer());
    }
  }

  private static void redirect(RoutingContext ctx, String to) {
    ctx.response().setStatusCode(302).putHeader("location", to).end();
  }

  private static HttpServerOptions options(ExtenderConfig config) {
    HttpServerOptions o = new HttpServerOptions().setCompressionSupported(true);
    if (config.tls()) {
      o.setSsl(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertPath(config.tlsCert().toString())
                  .setKeyPath(config.tlsKey().toString()));
      if (config.clientCa() != null) {
        o.setClientAuth(ClientAuth.REQUIRED)
            .setTrustOptions(new PemTrustOptions().addCertPath(config.clientCa().toString()));
      }
    }
    return o;
  }
}
