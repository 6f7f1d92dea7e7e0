package dev.tandem.extender;

import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.http.ErrorRoutes;
import dev.tandem.extender.http.InspectionRoutes;
import dev.tandem.extender.http.ReadingRoutes;
import dev.tandem.extender.http.SchedulerRoutes;
import dev.tandem.extender.http.UiRoutes;
import dev.tandem.extender.inspect.Inspection;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.standby.BindRehearsal;
import dev.tandem.extender.standby.Rehearsal;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.FilterVerb;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.extender.verbs.PreemptVerb;
import dev.tandem.extender.verbs.PrioritizeVerb;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root: the verbs, routes and metrics of the extender over one {@link
 * ClusterParts}, each given the parts of the cluster it needs, served on two ports: the scheduler
 * verbs on one (HTTPS with client certificates in a cluster), the inspection API, {@code /ui},
 * health and metrics on the other. Stable entry for tests, the demo, the UI test and the load
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

  /** The routers of the two ports. */
  public record Routers(Router verbs, Router inspection) {}

  public static Future<Listeners> start(Vertx vertx, ExtenderConfig config, ClusterParts cluster) {
    return start(vertx, config, cluster, new ExtenderMetrics(cluster));
  }

  public static Future<Listeners> start(
      Vertx vertx, ExtenderConfig config, ClusterParts cluster, ExtenderMetrics metrics) {
    return start(vertx, config, cluster, metrics, NodeClasses.none());
  }

  /**
   * @param classes the node class of each node, as the cluster's source reads it from node labels
   *     ({@code --node-class-defaults})
   */
  public static Future<Listeners> start(
      Vertx vertx,
      ExtenderConfig config,
      ClusterParts cluster,
      ExtenderMetrics metrics,
      NodeClasses classes) {
    Verbs reading = Verbs.of(config, cluster, classes);
    Routers routers = routers(vertx, config, cluster, metrics, reading);
    ListenerTls verbsTls = ListenerTls.verbs(config);
    if (!config.demo() && config.leaderElection() && config.rehearsalCycles() > 0) {
      rehearsal(vertx, config, verbsTls, cluster, metrics, reading).start();
    }
    long sweep = Math.max(1000, Math.min(10_000, config.assumedTtl().toMillis() / 4));
    vertx.setPeriodic(sweep, id -> cluster.assumptions().expire());
    Future<HttpServer> verbs =
        listen(vertx, verbsTls, routers.verbs(), config.port(), config.host());
    Future<HttpServer> inspection =
        listen(
            vertx,
            ListenerTls.inspection(config),
            routers.inspection(),
            config.inspectionPort(),
            config.host());
    return Future.join(verbs, inspection)
        .transform(
            done -> {
              if (done.succeeded()) {
                Listeners l = new Listeners(verbs.result(), inspection.result());
                LOG.info(
                    "scheduler extender: verbs on {}:{}, inspection on {}:{}",
                    config.host(),
                    l.verbsPort(),
                    config.host(),
                    l.inspectionPort());
                return Future.succeededFuture(l);
              }
              return closeStarted(verbs, inspection)
                  .transform(closed -> Future.failedFuture(done.cause()));
            });
  }

  /**
   * The standby's rehearsal: filter and prioritize served as on the verbs port (same verbs, same
   * TLS and HTTP version) on a loopback listener of its own, with pods and metrics no one reads.
   */
  private static Rehearsal rehearsal(
      Vertx vertx,
      ExtenderConfig config,
      ListenerTls verbsTls,
      ClusterParts cluster,
      ExtenderMetrics metrics,
      Verbs v) {
    Router routes = Router.router(vertx);
    new ReadingRoutes(
            vertx,
            cluster.state(),
            new RecentPods(Duration.ofSeconds(1), 1, cluster.pods()),
            v.filter(),
            v.prioritize(),
            v.requests(),
            new ExtenderMetrics(cluster))
        .mount(routes, config.prefix(), config.bodyLimit());
    ErrorRoutes.mount(routes);
    return new Rehearsal(
        vertx,
        cluster.state(),
        cluster.readiness(),
        metrics,
        routes,
        Rehearsal.Listener.like(ListenerTls.options(verbsTls)),
        config.prefix(),
        config.rehearsalCycles(),
        config.resources(),
        new BindRehearsal(
            bind(config, cluster, cluster.pods(), v),
            cluster.pods(),
            new PodRef(config.leaseNamespace(), config.identity(), "")));
  }

  /** The bind verb over {@code pods}: the verbs port's, and the one a standby rehearses. */
  private static BindVerb bind(
      ExtenderConfig config, ClusterParts cluster, PodSource pods, Verbs v) {
    return new BindVerb(
        cluster.readiness(),
        pods,
        cluster.assumptions(),
        cluster.writer(),
        v.requests(),
        config.assumedTtl(),
        cluster.state().gangRails());
  }

  private static Future<HttpServer> listen(
      Vertx vertx, ListenerTls tls, Router router, int port, String host) {
    return vertx
        .createHttpServer(ListenerTls.options(tls))
        .requestHandler(router)
        .listen(port, host)
        .onSuccess(
            server -> {
              if (tls != null) {
                tls.reloadOnChange(vertx, server, ListenerTls.RELOAD_EVERY);
              }
            });
  }

  private static Future<Void> closeStarted(Future<HttpServer> a, Future<HttpServer> b) {
    return Future.join(
            a.succeeded() ? a.result().close() : Future.succeededFuture(),
            b.succeeded() ? b.result().close() : Future.succeededFuture())
        .mapEmpty();
  }

  /** The routes of both ports, without servers: for tests and benchmarks that mount them. */
  public static Routers routers(
      Vertx vertx, ExtenderConfig config, ClusterParts cluster, ExtenderMetrics metrics) {
    return routers(vertx, config, cluster, metrics, NodeClasses.none());
  }

  /** The routes of both ports, with the node classes the cluster's source keeps. */
  public static Routers routers(
      Vertx vertx,
      ExtenderConfig config,
      ClusterParts cluster,
      ExtenderMetrics metrics,
      NodeClasses classes) {
    return routers(vertx, config, cluster, metrics, Verbs.of(config, cluster, classes));
  }

  /**
   * The verbs that read (filter, prioritize), over one evaluator: the routes' and, on a standby,
   * the rehearsal's.
   */
  private record Verbs(
      NodeEvaluator evaluator, PodRequests requests, FilterVerb filter, PrioritizeVerb prioritize) {

    static Verbs of(ExtenderConfig config, ClusterParts cluster, NodeClasses classes) {
      NodeEvaluator evaluator = new NodeEvaluator(config.cacheSize());
      return new Verbs(
          evaluator,
          new PodRequests(config.defaultPolicy(), config.resources(), classes),
          new FilterVerb(evaluator, cluster.state().gangRails()),
          new PrioritizeVerb(evaluator, cluster.state().gangRails()));
    }
  }

  private static Routers routers(
      Vertx vertx, ExtenderConfig config, ClusterParts cluster, ExtenderMetrics metrics, Verbs v) {
    RecentPods pods = new RecentPods(KEEP_PODS, MAX_PODS, cluster.pods());
    BindVerb bind = bind(config, cluster, pods, v);
    Router verbs = Router.router(vertx);
    new SchedulerRoutes(
            vertx,
            cluster.state(),
            pods,
            v.filter(),
            v.prioritize(),
            bind,
            new PreemptVerb(cluster.state(), pods),
            v.requests(),
            metrics)
        .mount(verbs, config.prefix(), config.bodyLimit());
    ErrorRoutes.mount(verbs);
    Router inspection = Router.router(vertx);
    new InspectionRoutes(
            vertx,
            cluster.state(),
            cluster.readiness(),
            new Inspection(cluster.state(), v.evaluator()),
            metrics)
        .mount(inspection);
    UiRoutes.mount(inspection);
    ErrorRoutes.mount(inspection);
    return new Routers(verbs, inspection);
  }
}
