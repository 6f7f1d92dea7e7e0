package dev.tandem.extender.kube;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.extender.state.Readiness;
import dev.tandem.kit.kube.KubeConnection;
import dev.tandem.kit.retry.Backoff;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender against a real API server: informers on NodeTopology, Pods and Nodes feed the {@link
 * ClusterState} and restore assumed plans; binds write through the API; leader election on a Lease
 * decides which replica is Ready and binds; the leader reports pending pods' unsatisfiable claims
 * ({@link ClaimAudit}).
 */
public final class KubeCluster implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KubeCluster.class);
  private static final long RESYNC_MILLIS = 60_000;

  /**
   * Objects per page of an informer's list: unpaged, the first list of 15,000 NodeTopologies, Nodes
   * or Pods arrives as one response, read whole into the heap beside the state it fills.
   */
  static final long LIST_PAGE = 500;

  /**
   * Informer start retries: after 1 s, then twice as long each time up to 10 s. A passing fault (an
   * API server restarting) costs a second, a lasting one (no CRD, no RBAC) is logged every 10 s.
   */
  static final long WATCH_CHECK_MILLIS = 1000;

  static final Backoff INFORMER_START = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));

  private final Vertx vertx;
  private final KubernetesClient client;
  private final ExtenderConfig config;
  private final KubePods pods;
  private final ClusterParts cluster;
  private final ClusterState state;
  private final Readiness readiness;
  private final NodeClasses classes;
  private final Map<String, SharedIndexInformer<?>> informers = new ConcurrentSkipListMap<>();
  private volatile boolean closed;
  private volatile CompletableFuture<?> election;
  private volatile ClaimWatch claimWatch;
  private volatile GangRailAudit gangAudit;
  private long watchTimer = -1;
  private long degradedSince = -1;

  private KubeCluster(Vertx vertx, KubernetesClient client, ExtenderConfig config) {
    this.vertx = vertx;
    this.client = client;
    this.config = config;
    this.pods = new KubePods(vertx, client);
    this.cluster = ClusterParts.empty(Clock.systemUTC(), pods, new KubeWriter(vertx, client));
    this.state = cluster.state();
    this.readiness = cluster.readiness();
    this.classes = new NodeClasses(config.nodeClassDefaults(), config.defaultPolicy());
  }

  /** Connects with kubeconfig or the in-cluster service account, as fabric8 finds them. */
  public static KubeCluster connect(Vertx vertx, ExtenderConfig config) {
    return of(vertx, KubeConnection.of(null).client(), config);
  }

  public static KubeCluster of(Vertx vertx, KubernetesClient client, ExtenderConfig config) {
    return new KubeCluster(vertx, client, config);
  }

  public ClusterParts cluster() {
    return cluster;
  }

  /** The node class of each node, from the labels of its Node object. */
  public NodeClasses classes() {
    return classes;
  }

  /**
   * Starts the informers (blocking until their first list, on a worker), the claim audit's own
   * ({@link ClaimWatch}) and leader election.
   */
  public void start(ExtenderMetrics metrics) {
    gangAudit =
        new GangRailAudit(client, state, readiness, metrics, config.identity(), Clock.systemUTC());
    startInformersRetrying(metrics);
    ClaimAudit audit =
        new ClaimAudit(client, state, readiness, metrics, config.identity(), Clock.systemUTC());
    claimWatch = new ClaimWatch(vertx, client, audit, RESYNC_MILLIS);
    claimWatch.start();
    watchTimer = vertx.setPeriodic(WATCH_CHECK_MILLIS, id -> checkWatches());
    if (config.leaderElection()) {
      elect();
    } else {
      readiness.leader(true);
    }
  }

  /** Retries with {@link #INFORMER_START} until the informers start. */
  private void startInformersRetrying(ExtenderMetrics metrics) {
    startInformersRetrying(metrics, 1);
  }

  private void startInformersRetrying(ExtenderMetrics metrics, int failures) {
    vertx
        .executeBlocking(
            () -> {
              try {
                startInformers(metrics);
              } catch (RuntimeException e) {
                // on this worker: stopping an informer waits for its watch, never on the event loop
                informers.values().forEach(SharedIndexInformer::stop);
                informers.clear();
                throw e;
              }
              return null;
            },
            false)
        .onSuccess(v -> watchSync())
        .onFailure(
            e -> {
              long delayMs = INFORMER_START.delay(failures).toMillis();
              LOG.error(
                  "informers failed to start: {} (is the NodeTopology CRD installed? RBAC?); retrying in {} s",
                  e.getMessage(),
                  delayMs / 1000);
              if (!closed) {
                vertx.setTimer(delayMs, id -> startInformersRetrying(metrics, failures + 1));
              }
            });
  }

  private void watchSync() {
    if (readiness.synced() || closed) {
      return;
    }
    boolean synced = informers.values().stream().allMatch(SharedIndexInformer::hasSynced);
    readiness.synced(synced);
    if (!synced) {
      vertx.setTimer(1000, id -> watchSync());
    }
  }

  /**
   * Keeps each informer as soon as it runs, so that a failed start stops those that did run. Their
   * caches hold slim objects ({@link SlimStore}): the handlers convert each event's object into the
   * cluster state, which is all the decisions and the inspection API read.
   */
  private void startInformers(ExtenderMetrics metrics) {
    start(
        "nodetopologies",
        client.resources(NodeTopology.class).withLimit(LIST_PAGE).runnableInformer(RESYNC_MILLIS),
        SlimStore.topologies(),
        Informers.topologies(state, metrics, config.resources()));
    // assigned pods only (spec.nodeName!=): plans are restored, and devices freed, only for pods
    // on a node; a bind's pod that is not assigned yet is fetched with a GET (KubePods)
    // indexed by UID too: a preemption names its victims by UID only
    SharedIndexInformer<Pod> podInformer =
        client
            .pods()
            .inAnyNamespace()
            .withoutField("spec.nodeName", "")
            .withLimit(LIST_PAGE)
            .runnableInformer(RESYNC_MILLIS)
            .addIndexers(KubePods.indexers());
    pods.informer(podInformer);
    start(
        "pods",
        podInformer,
        SlimStore.pods(),
        Informers.pods(state, cluster.assumptions(), metrics, config.assumedTtl(), gangAudit));
    start(
        "nodes",
        client.nodes().withLimit(LIST_PAGE).runnableInformer(RESYNC_MILLIS),
        SlimStore.nodes(),
        Informers.nodes(state, classes, metrics, config.resources()));
    boolean synced = informers.values().stream().allMatch(SharedIndexInformer::hasSynced);
    readiness.synced(synced);
    LOG.info("informers {}: {} NodeTopologies", synced ? "synced" : "started", state.size());
  }

  /**
   * Degraded while a synced informer is not watching (its watch broke and it is re-listing or
   * waiting for the API server): the replica answers from the state it last saw. Logged once when
   * it starts and once when it ends.
   */
  private void checkWatches() {
    if (closed || !readiness.synced()) {
      return;
    }
    List<String> lost = new ArrayList<>();
    informers.forEach(
        (name, informer) -> {
          if (!informer.isWatching()) {
            lost.add(name);
          }
        });
    long now = System.currentTimeMillis();
    if (lost.isEmpty()) {
      if (degradedSince >= 0) {
        LOG.info(
            "informers watch the API server again after {} s; no longer degraded",
            (now - degradedSince) / 1000);
        degradedSince = -1;
      }
      readiness.degraded(null);
      return;
    }
    String why =
        "informers "
            + String.join(", ", lost)
            + " lost their watch on the API server; answering from the state they last saw";
    if (degradedSince < 0) {
      degradedSince = now;
      LOG.warn("degraded: {}", why);
    }
    readiness.degraded(why);
  }

  /** Runs an informer with a slim store and no namespace index (nothing lists by namespace). */
  private <T extends HasMetadata> void start(
      String name,
      SharedIndexInformer<T> informer,
      SlimStore<T> store,
      ResourceEventHandler<T> handler) {
    informer.itemStore(store).addEventHandler(handler);
    informer.removeIndexer(Cache.NAMESPACE_INDEX);
    informers.put(name, informer);
    informer.run();
  }

  private void elect() {
    if (closed) {
      return;
    }
    LeaderElector elector =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName(config.leaseName())
                    .withLock(
                        new LeaseLock(
                            config.leaseNamespace(), config.leaseName(), config.identity()))
                    .withLeaseDuration(Duration.ofSeconds(15))
                    .withRenewDeadline(Duration.ofSeconds(10))
                    .withRetryPeriod(Duration.ofSeconds(2))
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            () -> {
                              LOG.info("{} leads: Ready, binding", config.identity());
                              readiness.leader(true);
                            },
                            () -> {
                              LOG.info("{} stopped leading: not Ready", config.identity());
                              readiness.leader(false);
                            },
                            leader -> LOG.info("leader is {}", leader)))
                    .build())
            .build();
    election = elector.start();
    election.whenComplete(
        (v, e) -> {
          readiness.leader(false);
          if (!closed) {
            vertx.setTimer(2000, id -> elect());
          }
        });
  }

  @Override
  public void close() {
    closed = true;
    CompletableFuture<?> e = election;
    if (e != null) {
      e.cancel(true);
    }
    vertx.cancelTimer(watchTimer);
    ClaimWatch claims = claimWatch;
    if (claims != null) {
      claims.close();
    }
    informers.values().forEach(SharedIndexInformer::stop);
    client.close();
  }
}
