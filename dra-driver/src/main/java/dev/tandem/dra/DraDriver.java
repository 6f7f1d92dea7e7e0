package dev.tandem.dra;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.rail.NodeRails;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.cdi.NvidiaCdiSpecs;
import dev.tandem.dra.claims.ApiServerClaims;
import dev.tandem.dra.health.HealthFeed;
import dev.tandem.dra.health.PoolChange;
import dev.tandem.dra.health.PoolHealth;
import dev.tandem.dra.kubelet.DraServer;
import dev.tandem.dra.kubelet.RegistrationServer;
import dev.tandem.dra.prepare.Checkpoint;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.dra.publish.DroppedField;
import dev.tandem.dra.publish.GpuPublishers;
import dev.tandem.dra.publish.SlicePublisher;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.kit.kube.NodeLabels;
import dev.tandem.kit.loop.WorkerLoop;
import dev.tandem.kit.ops.OpsServer;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA driver's composition root: discovers the node (its HCAs' rails set as {@code --rail-map}
 * and the Node's labels say, docs/rails.md), builds its pool, publishes its ResourceSlices, serves
 * the DRA and registration sockets, and keeps the pool current: every {@code --rediscover-interval}
 * it discovers the node again on its own thread ({@link WorkerLoop}), publishes when the pool
 * changed (the publisher writes nothing otherwise) and tells the kubelet's health streams; it
 * publishes again each time the kubelet registers the driver (a kubelet deletes its node's slices
 * when it starts: docs/dra.md). A failed rediscovery keeps the last pool; a failed publication is
 * retried after {@link #REPUBLISH}. Discovery, file I/O and API calls never run on the event loop.
 */
public final class DraDriver {

  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  /** Waits between tries while a publication fails: every 5 s, for ever. */
  static final Backoff REPUBLISH = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5));

  /** How many rediscovery intervals the kubelet may trust a health report for. */
  static final int HEALTH_TRUSTED_ROUNDS = 3;

  private final Vertx vertx;
  private final DraConfig config;
  private final TopologySource source;
  private final UverbsLocator uverbs;
  private final SlicePublisher publisher;
  private final HealthFeed health = new HealthFeed();
  private final WorkerLoop loop;
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Counter published;
  private final Counter publishFailures;
  private final Counter registrations;
  private final Counter poolChanged;
  private final Counter poolUnchanged;
  private final Counter rediscoveryFailures;
  private volatile Current current;
  private volatile String publishError = "ResourceSlices not published yet";
  private volatile String rediscoveryError;
  private volatile boolean registered;
  private DraServer dra;
  private RegistrationServer registration;
  private OpsServer ops;

  /** The node as last discovered, and the pool built from it. */
  private record Current(Machine machine, NodePool pool, String source) {}

  /**
   * The node of a discovery and its pool. Prepare hands out each HCA's uverbs node: an hwloc export
   * names none, so each HCA without one gets the one sysfs shows.
   */
  private Current current(Discovery discovery) {
    Machine machine = uverbs.withUverbs(discovery.machine());
    return new Current(machine, PoolBuilder.build(machine, config.poolSpec()), discovery.source());
  }

  private DraDriver(
      Vertx vertx,
      DraConfig config,
      TopologySource source,
      Discovery first,
      KubernetesClient kube) {
    this.vertx = vertx;
    this.config = config;
    this.source = source;
    this.uverbs = new UverbsLocator(config.node().sysfsRoot());
    this.current = current(first);
    this.publisher = new SlicePublisher(kube);
    this.loop =
        new WorkerLoop(
            "dra-pool-" + config.node().nodeName(),
            this::round,
            config.rediscoverInterval(),
            REPUBLISH);
    metrics.gauge("tandem_dra_devices", this, d -> d.current.pool().devices().size());
    metrics.gauge("tandem_dra_unhealthy_devices", this, DraDriver::unhealthy);
    metrics.gauge("tandem_dra_health_streams", health, HealthFeed::subscribers);
    for (DroppedField f : DroppedField.values()) {
      metrics.gauge(
          "tandem_dra_api_server_dropped_fields",
          Tags.of("gate", f.gate()),
          publisher,
          p -> p.dropped().contains(f) ? 1 : 0);
    }
    this.published = metrics.counter("tandem_dra_publications_total", "outcome", "ok");
    this.publishFailures = metrics.counter("tandem_dra_publications_total", "outcome", "failed");
    this.registrations = metrics.counter("tandem_dra_kubelet_registrations_total");
    this.poolChanged = metrics.counter("tandem_dra_rediscoveries_total", "outcome", "changed");
    this.poolUnchanged = metrics.counter("tandem_dra_rediscoveries_total", "outcome", "unchanged");
    this.rediscoveryFailures =
        metrics.counter("tandem_dra_rediscoveries_total", "outcome", "failed");
    health.publish(PoolHealth.of(current.pool(), Instant.now(), healthTrust()));
  }

  /**
   * Discovers the node, publishes its slices, serves the DRA and registration sockets (in that
   * order: the kubelet finds the registration socket only when the DRA socket answers), and starts
   * rediscovering.
   *
   * @return fails on a discovery, a pool, a CDI, a checkpoint or a publication error, or another
   *     publisher of the node's GPUs in joint mode, naming it
   */
  public static Future<DraDriver> start(Vertx vertx, DraConfig config, KubernetesClient kube) {
    return start(
        vertx,
        config,
        kube,
        () ->
            TopologySources.create(
                config.node().into(DiscoveryOptions::fromNodeSettings),
                new NodeRails(
                    config.railMap(), () -> NodeLabels.read(kube, config.node().nodeName()))));
  }

  /** With the topology source a test gives. */
  static Future<DraDriver> start(
      Vertx vertx, DraConfig config, KubernetesClient kube, Supplier<TopologySource> source) {
    return vertx
        .executeBlocking(() -> prepared(vertx, config, kube, source.get()), false)
        .compose(d -> d.serve(kube).map(d))
        .onSuccess(DraDriver::rediscoverFromNowOn);
  }

  /** Everything before the sockets, blocking: discovery, the pool, checks, publication. */
  private static DraDriver prepared(
      Vertx vertx, DraConfig config, KubernetesClient kube, TopologySource source) {
    DraDriver d = new DraDriver(vertx, config, source, source.discover(), kube);
    LOG.info(
        "node {}: {} device(s) in the pool of driver {} ({}, HCA shape {}; topology from {})",
        config.node().nodeName(),
        d.pool().devices().size(),
        config.driver(),
        config.joint() ? "joint: GPUs and HCAs" : "HCAs only",
        config.mode(),
        d.current.source());
    if (config.joint()) {
      refuseOtherGpuPublishers(config, kube);
      NvidiaCdiSpecs.requireAll(gpus(d.current.machine()), cdiDirectories(config));
    }
    createDirectories(config.pluginRegistryDir(), config.pluginDir());
    d.publish();
    return d;
  }

  /** Joint mode publishes the node's GPUs: nobody else may. */
  private static void refuseOtherGpuPublishers(DraConfig config, KubernetesClient kube) {
    String node = config.node().nodeName();
    List<String> others = new GpuPublishers(kube).others(node);
    if (!others.isEmpty()) {
      throw new IllegalStateException(
          "joint mode (--joint) publishes the GPUs of node "
              + node
              + ", but "
              + String.join(" and ", others)
              + " publishes them already, and one GPU must not be offered twice: run the driver"
              + " without --joint (HCA-only mode, beside NVIDIA's GPU driver: root-complex and"
              + " NUMA alignment only), or remove the other publisher from this node");
    }
  }

  private Future<Void> serve(KubernetesClient kube) {
    Preparer preparer =
        new Preparer(
            config.driver(),
            () -> current.pool(),
            new ApiServerClaims(kube),
            new CdiDirectory(config.cdiDir()),
            config.deviceInfoDir(),
            Checkpoint.open(config.checkpoint()),
            ResourceNames.HCA);
    return DraServer.start(vertx, config.draSocket(), preparer, health)
        .compose(
            s -> {
              dra = s;
              return RegistrationServer.start(
                  vertx,
                  config.registrationSocket(),
                  config.driver(),
                  config.draSocket(),
                  status -> {
                    registered = status.getPluginRegistered();
                    if (registered) {
                      registrations.increment();
                      loop.runSoon();
                    }
                  });
            })
        .map(
            r -> {
              registration = r;
              LOG.info(
                  "serving DRA on {}, registration on {}",
                  config.draSocket(),
                  config.registrationSocket());
              return null;
            });
  }

  private void rediscoverFromNowOn() {
    loop.start();
    if (config.rediscoverInterval().isZero()) {
      LOG.info("rediscovery off (--rediscover-interval 0): the pool is the one found at start");
    } else {
      LOG.info("rediscovering node {} every {} s", pool().nodeName(), interval());
    }
  }

  /** Serves {@code /healthz}, {@code /readyz} and {@code /metrics}; completes with the port. */
  public Future<Integer> listenOps(int port) {
    ops = new OpsServer(vertx, metrics, this::healthz, this::notReady);
    return ops.listen(port);
  }

  /** Why the driver is not ready: slices not published, or the kubelet has not registered it. */
  public Optional<String> notReady() {
    String error = publishError;
    if (error != null) {
      return Optional.of(error);
    }
    return registered
        ? Optional.empty()
        : Optional.of("the kubelet has not registered driver " + config.driver() + " yet");
  }

  private JsonObject healthz() {
    NodePool pool = pool();
    JsonObject out =
        new JsonObject()
            .put("node", pool.nodeName())
            .put("driver", pool.driver())
            .put("devices", pool.devices().size())
            .put("unhealthyDevices", unhealthy())
            .put("registered", registered)
            .put("rediscoverSeconds", interval())
            .put("healthStreams", health.subscribers());
    Set<DroppedField> dropped = publisher.dropped();
    if (!dropped.isEmpty()) {
      out.put(
          "apiServerDrops",
          new JsonArray(dropped.stream().map(DroppedField::consequence).toList()));
    }
    String error = rediscoveryError;
    return error == null ? out : out.put("rediscoveryError", error);
  }

  /** The pool published (or being published): the one last discovered. */
  public NodePool pool() {
    return current.pool();
  }

  /** The pool's health, as the kubelet's health streams get it. */
  HealthFeed health() {
    return health;
  }

  /** One round of the loop: rediscover when rediscovery is on, then publish. */
  private void round() {
    if (!config.rediscoverInterval().isZero()) {
      rediscover();
    }
    try {
      publish();
    } catch (RuntimeException e) {
      LOG.warn(
          "{}; trying again in {} s",
          publishError,
          REPUBLISH.delay(loop.consecutiveFailures() + 1).toSeconds());
      throw e;
    }
  }

  /**
   * Discovers the node again and makes its pool the current one; the health streams hear of it
   * either way. A failure keeps the last pool, its devices' health unknown.
   */
  void rediscover() {
    Current was = current;
    Instant now = Instant.now();
    try {
      Current next = current(source.discover());
      NodePool pool = next.pool();
      String change = PoolChange.describe(was.pool(), pool);
      current = next;
      if (rediscoveryError != null) {
        LOG.info("node {}: rediscovery works again", pool.nodeName());
        rediscoveryError = null;
      }
      if (change.isEmpty()) {
        poolUnchanged.increment();
      } else {
        poolChanged.increment();
        LOG.info("node {}: the pool changed: {}", pool.nodeName(), change);
      }
      health.publish(PoolHealth.of(pool, now, healthTrust()));
    } catch (RuntimeException e) {
      rediscoveryFailures.increment();
      rediscoveryError =
          "rediscovery of node "
              + was.pool().nodeName()
              + " failed at "
              + now
              + ": "
              + (e.getMessage() == null ? e.toString() : e.getMessage())
              + "; the pool found before ("
              + was.pool().devices().size()
              + " device(s)) stays published";
      LOG.warn("{}", rediscoveryError);
      health.publish(
          PoolHealth.unknown(
              was.pool(), now, healthTrust(), "rediscovery failed: " + e.getMessage()));
    }
  }

  /** Publishes the current pool. Blocking; one publication at a time. */
  synchronized void publish() {
    NodePool pool = pool();
    try {
      SlicePublisher.Outcome o = publisher.publish(pool);
      published.increment();
      publishError = null;
      if (!o.unchanged()) {
        LOG.info(
            "ResourceSlices of node {} at pool generation {}", pool.nodeName(), o.generation());
      }
    } catch (RuntimeException e) {
      publishFailures.increment();
      publishError = "publishing the ResourceSlices of node " + pool.nodeName() + " failed: " + e;
      throw e;
    }
  }

  /** Stops rediscovering, then serving: the registration socket first (the kubelet deregisters). */
  public Future<Void> stop() {
    loop.close();
    Future<Void> reg = registration == null ? Future.succeededFuture() : registration.stop();
    return reg.eventually(() -> dra == null ? Future.succeededFuture() : dra.stop())
        .eventually(() -> ops == null ? Future.succeededFuture() : ops.close());
  }

  private long interval() {
    return config.rediscoverInterval().toSeconds();
  }

  /** A report outlives a few missed rounds; without rediscovery, the kubelet's own default. */
  private Duration healthTrust() {
    return config.rediscoverInterval().multipliedBy(HEALTH_TRUSTED_ROUNDS);
  }

  private double unhealthy() {
    return pool().devices().stream().filter(d -> !d.taints().isEmpty()).count();
  }

  private static List<Device> gpus(Machine m) {
    return m.devices().stream().filter(d -> d.kind() == DeviceKind.GPU).toList();
  }

  /** Where NVIDIA's spec may be: the runtimes' directories and this driver's. */
  private static List<Path> cdiDirectories(DraConfig config) {
    LinkedHashSet<Path> dirs = new LinkedHashSet<>(NvidiaCdiSpecs.DIRECTORIES);
    dirs.add(config.cdiDir());
    return new ArrayList<>(dirs);
  }

  private static void createDirectories(Path... dirs) {
    for (Path dir : dirs) {
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot create " + dir + " (mount the kubelet's directory read-write): " + e, e);
      }
    }
  }
}
