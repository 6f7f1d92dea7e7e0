package dev.tandem.agent.run;

import dev.tandem.agent.audit.AlignmentEvents;
import dev.tandem.agent.audit.AlignmentMetrics;
import dev.tandem.agent.audit.AllocationAudit;
import dev.tandem.agent.audit.AuditLoop;
import dev.tandem.agent.audit.MigDiscovery;
import dev.tandem.agent.audit.NodePods;
import dev.tandem.agent.audit.NodeSlices;
import dev.tandem.agent.ops.Health;
import dev.tandem.agent.publish.NodeTopologyPublisher;
import dev.tandem.agent.publish.PublishLoop;
import dev.tandem.api.rail.NodeRails;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.kit.kube.KubeConnection;
import dev.tandem.kit.kube.NodeLabels;
import dev.tandem.kit.ops.OpsServer;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.kubelet.podresources.PodResourcesClient;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent in {@code run} mode: the publish loop, the audit loop and the health/metrics server,
 * wired together. The audit hands its reports to the publish loop, which reads its topology back.
 */
public final class Agent {

  private static final Logger LOG = LoggerFactory.getLogger(Agent.class);
  private static final Duration API_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration MIG_RETRY = Duration.ofMinutes(5);

  /** Publish retries: 1 s, doubling, at most a minute apart. */
  static final Backoff PUBLISH_BACKOFF = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

  private final Vertx vertx;
  private final KubernetesClient client;
  private final PodResourcesClient podResources;
  private final PublishLoop publish;
  private final AuditLoop audit;
  private final OpsServer ops;
  private int boundPort;

  private Agent(RunConfig config, KubernetesClient client) {
    this.client = client;
    this.vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(2)
                .setInternalBlockingPoolSize(2));
    Clock clock = Clock.systemUTC();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    publish =
        new PublishLoop(
            vertx,
            TopologySources.create(
                config.discovery(),
                new NodeRails(config.railMap(), () -> NodeLabels.read(client, config.nodeName()))),
            new NodeTopologyPublisher(client, config.nodeName()),
            config.resources(),
            config.resync(),
            PUBLISH_BACKOFF,
            clock);
    AlignmentMetrics metrics = new AlignmentMetrics(registry);
    podResources =
        PodResourcesClient.create(
            vertx, config.podResourcesSocket(), PodResourcesClient.DEFAULT_TIMEOUT);
    AuditLoop.Peers peers =
        new AuditLoop.Peers(
            podResources,
            NodePods.fieldSelector(client, config.nodeName()),
            new AlignmentEvents(client, config.nodeName(), clock),
            metrics,
            mig(config.nvmlLibrary(), clock),
            NodeSlices.fieldSelector(client, config.nodeName()));
    audit =
        new AuditLoop(
            vertx,
            peers,
            config.nodeName(),
            config.poll(),
            new AllocationAudit(AlignmentPolicy.DEFAULT, config.resources(), config.draDriver()),
            publish::machine,
            r -> publish.allocations(r.allocations(), r.audit(), r.notes(), r.units(), r.mig()));
    Gauge.builder(
            "tandem_nodetopology_last_publish_timestamp_seconds",
            publish,
            p -> p.lastSuccess() == null ? 0 : p.lastSuccess().getEpochSecond())
        .description("When NodeTopology was last written or confirmed")
        .register(registry);
    Gauge.builder("tandem_nodetopology_publish_failures", publish, PublishLoop::consecutiveFailures)
        .description("Failed NodeTopology publishes since the last success")
        .register(registry);
    ops =
        new OpsServer(
            vertx,
            registry,
            () ->
                new Health(publish.lastSuccess(), publish.lastError(), metrics.podResourcesUp())
                    .toJson(),
            null);
  }

  /** Starts everything; fails only when the health/metrics port cannot be bound. */
  public static Future<Agent> start(RunConfig config) {
    return start(config, kubernetes(config).client());
  }

  /** Starts with the given client (closed by {@link #stop}). */
  static Future<Agent> start(RunConfig config, KubernetesClient client) {
    Agent agent = new Agent(config, client);
    return agent
        .ops
        .listen(config.port())
        .map(
            port -> {
              agent.boundPort = port;
              agent.publish.start();
              agent.audit.start();
              return agent;
            });
  }

  /**
   * Stops the loops and the server and closes the clients; blocks up to {@code timeout} per step.
   */
  public void stop(Duration timeout) {
    publish.stop();
    audit.stop();
    try {
      ops.close().eventually(podResources::close).await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.debug("Closing the servers did not complete: {}", e.getMessage());
    }
    client.close();
    try {
      vertx.close().await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      LOG.debug("Closing Vert.x did not complete: {}", e.getMessage());
    }
  }

  /** The port /healthz and /metrics listen on. */
  public int port() {
    return boundPort;
  }

  /** MIG devices through NVML, read only when the kubelet reports MIG ids (see MigDiscovery). */
  static MigDiscovery mig(String library, Clock clock) {
    Nvml nvml = new Nvml(library);
    return new MigDiscovery(library, nvml::migGpus, clock, MIG_RETRY);
  }

  static KubeConnection kubernetes(RunConfig config) {
    return KubeConnection.of(config.kubeconfig()).bounded(API_TIMEOUT, 1);
  }
}
