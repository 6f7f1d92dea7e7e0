package dev.tandem.dra;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.cdi.NvidiaCdiSpecs;
import dev.tandem.dra.claims.ApiServerClaims;
import dev.tandem.dra.kubelet.DraServer;
import dev.tandem.dra.kubelet.RegistrationServer;
import dev.tandem.dra.prepare.Checkpoint;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.dra.publish.SlicePublisher;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.kit.ops.OpsServer;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA driver's composition root: discovers the node, builds its pool, publishes its
 * ResourceSlices, serves the DRA and registration sockets, and publishes again each time the
 * kubelet registers the driver (a kubelet deletes its node's slices when it starts: docs/dra.md).
 * Discovery, file I/O and API calls run on worker threads, never on the event loop.
 */
public final class DraDriver {

  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  /** Waits between tries while publishing after a registration fails: every 5 s, for ever. */
  static final Backoff REPUBLISH = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(5));

  private final Vertx vertx;
  private final DraConfig config;
  private final Machine machine;
  private final NodePool pool;
  private final String source;
  private final SlicePublisher publisher;
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Counter published;
  private final Counter publishFailures;
  private final Counter registrations;
  private volatile String publishError = "ResourceSlices not published yet";
  private volatile boolean registered;
  private volatile boolean stopping;
  private DraServer dra;
  private RegistrationServer registration;
  private OpsServer ops;

  private DraDriver(Vertx vertx, DraConfig config, Discovery discovery, KubernetesClient kube) {
    this.vertx = vertx;
    this.config = config;
    // Prepare hands out each HCA's uverbs node: an hwloc export names none, sysfs does.
    this.machine = new UverbsLocator(config.node().sysfsRoot()).withUverbs(discovery.machine());
    this.pool = PoolBuilder.build(machine, config.poolSpec());
    this.source = discovery.source();
    this.publisher = new SlicePublisher(kube);
    metrics.gauge("tandem_dra_devices", pool.devices().size());
    this.published = metrics.counter("tandem_dra_publications_total", "outcome", "ok");
    this.publishFailures = metrics.counter("tandem_dra_publications_total", "outcome", "failed");
    this.registrations = metrics.counter("tandem_dra_kubelet_registrations_total");
  }

  /**
   * Discovers the node, publishes its slices, and serves the DRA and registration sockets (in that
   * order: the kubelet finds the registration socket only when the DRA socket answers).
   *
   * @return fails on a discovery, a pool, a CDI, a checkpoint or a publication error, naming it
   */
  public static Future<DraDriver> start(Vertx vertx, DraConfig config, KubernetesClient kube) {
    return vertx
        .executeBlocking(() -> prepared(vertx, config, kube), false)
        .compose(d -> d.serve(kube).map(d));
  }

  /** Everything before the sockets, blocking: discovery, the pool, directories, publication. */
  private static DraDriver prepared(Vertx vertx, DraConfig config, KubernetesClient kube) {
    Discovery discovery =
        TopologySources.discoverOnce(config.node().into(DiscoveryOptions::fromNodeSettings));
    DraDriver d = new DraDriver(vertx, config, discovery, kube);
    LOG.info(
        "node {}: {} device(s) in the pool of driver {} ({}, HCA shape {}; topology from {})",
        config.node().nodeName(),
        d.pool.devices().size(),
        config.driver(),
        config.joint() ? "joint: GPUs and HCAs" : "HCAs only",
        config.mode(),
        d.source);
    if (config.joint()) {
      NvidiaCdiSpecs.requireAll(gpus(discovery.machine()), cdiDirectories(config));
    }
    createDirectories(config.pluginRegistryDir(), config.pluginDir());
    d.publish();
    return d;
  }

  private Future<Void> serve(KubernetesClient kube) {
    Preparer preparer =
        new Preparer(
            config.driver(),
            () -> machine,
            new ApiServerClaims(kube),
            new CdiDirectory(config.cdiDir()),
            Checkpoint.open(config.checkpoint()),
            ResourceNames.HCA);
    return DraServer.start(vertx, config.draSocket(), preparer)
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
                      republish(0);
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

  /** Serves {@code /healthz}, {@code /readyz} and {@code /metrics}; completes with the port. */
  public Future<Integer> listenOps(int port) {
    ops = new OpsServer(vertx, metrics, this::health, this::notReady);
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

  private JsonObject health() {
    return new JsonObject()
        .put("node", pool.nodeName())
        .put("driver", pool.driver())
        .put("devices", pool.devices().size())
        .put("registered", registered);
  }

  /** The pool published. */
  public NodePool pool() {
    return pool;
  }

  /** Publishes the pool. Blocking; one publication at a time. */
  synchronized void publish() {
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

  /**
   * Publishes again on a worker thread, and again after {@link #REPUBLISH}'s delay while it fails.
   */
  private void republish(int failures) {
    vertx
        .executeBlocking(
            () -> {
              publish();
              return null;
            },
            false)
        .onFailure(
            e -> {
              Duration delay = REPUBLISH.delay(failures + 1);
              LOG.warn("{}; trying again in {} ms", publishError, delay.toMillis());
              if (!stopping) {
                vertx.setTimer(delay.toMillis(), t -> republish(failures + 1));
              }
            });
  }

  /** Stops serving: removes the registration socket first (the kubelet deregisters), then DRA's. */
  public Future<Void> stop() {
    stopping = true;
    Future<Void> reg = registration == null ? Future.succeededFuture() : registration.stop();
    return reg.eventually(() -> dra == null ? Future.succeededFuture() : dra.stop())
        .eventually(() -> ops == null ? Future.succeededFuture() : ops.close());
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
