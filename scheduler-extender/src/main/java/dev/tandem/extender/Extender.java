package dev.tandem.extender;

import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.http.ErrorRoutes;
import dev.tandem.extender.http.InspectionRoutes;
import dev.tandem.extender.http.SchedulerRoutes;
import dev.tandem.extender.http.UiRoutes;
import dev.tandem.extender.inspect.Inspection;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.Cluster;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PreemptVerb;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the verbs, routes and metrics of the extender over one {@link Cluster},
 * each given the parts of the cluster it needs, served over HTTP: scheduler verbs, inspection API,
 * {@code /ui}, health and metrics. Stable entry for tests, the demo, the UI test and the load
 * harness: {@code Extender.start(vertx, config, cluster)}.
 */
public final class Extender {

  private static final Logger LOG = LoggerFactory.getLogger(Extender.class);

  /**
   * How long, and how many, pods seen by filter and prioritize are kept for their bind (dropped
   * once bound). A pod as kube-scheduler sends it takes about 9 KiB of heap here
   * (benchmarks/run-soak): 10,000 of them fit the Deployment's heap (70 % of 512 MiB) with room to
   * spare; 100,000 did not.
   */
  private static final Duration KEEP_PODS = Duration.ofMinutes(10);

  private static final long MAX_PODS = 10_000;

  private Extender() {}

  public static Future<HttpServer> start(Vertx vertx, ExtenderConfig config, Cluster cluster) {
    return start(vertx, config, cluster, new ExtenderMetrics(cluster));
  }

  public static Future<HttpServer> start(
      Vertx vertx, ExtenderConfig config, Cluster cluster, ExtenderMetrics metrics) {
    Router router = router(vertx, config, cluster, metrics);
    long sweep = Math.max(1000, Math.min(10_000, config.assumedTtl().toMillis() / 4));
    vertx.setPeriodic(sweep, id -> cluster.assumptions().expire());
    return vertx
        .createHttpServer(options(config))
        .requestHandler(router)
        .listen(config.port(), config.host())
        .onSuccess(
            s -> LOG.info("scheduler extender listening on {}:{}", config.host(), s.actualPort()));
  }

  /** The routes, without a server: for tests that mount them elsewhere. */
  public static Router router(
      Vertx vertx, ExtenderConfig config, Cluster cluster, ExtenderMetrics metrics) {
    NodeEvaluator evaluator = new NodeEvaluator(config.cacheSize());
    RecentPods pods = new RecentPods(KEEP_PODS, MAX_PODS, cluster.pods());
    PodRequests requests = new PodRequests(config.defaultPolicy(), config.resources());
    BindVerb bind =
        new BindVerb(
            cluster.readiness(),
            pods,
            cluster.assumptions(),
            cluster.writer(),
            requests,
            config.assumedTtl());
    Router router = Router.router(vertx);
    new SchedulerRoutes(
            vertx,
            cluster.state(),
            pods,
            new FilterVerb(evaluator),
            new PrioritizeVerb(evaluator),
            bind,
            new PreemptVerb(cluster.state(), pods),
            requests,
            metrics)
        .mount(router, config.prefix(), config.bodyLimit());
    new InspectionRoutes(
            vertx,
            cluster.state(),
            cluster.readiness(),
            new Inspection(cluster.state(), evaluator),
            metrics)
        .mount(router);
    UiRoutes.mount(router);
    ErrorRoutes.mount(router);
    return router;
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
