package dev.tandem.deviceplugin;

import dev.tandem.api.rail.NodeRails;
import dev.tandem.deviceplugin.cli.ConfigFile;
import dev.tandem.deviceplugin.cli.PluginConfig;
import dev.tandem.deviceplugin.cli.PluginSettings;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.pods.ApiServerPlans;
import dev.tandem.deviceplugin.pods.KubeletPodResources;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.kube.KubeConnection;
import dev.tandem.kit.kube.NodeLabels;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the device-plugin jar (its composition root): settings, the resource
 * configuration, discovery, then the plugin until SIGTERM.
 */
public final class DevicePluginMain {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginMain.class);

  private DevicePluginMain() {}

  public static void main(String[] args) {
    if (Settings.wantsHelp(List.of(args))) {
      System.out.print(PluginSettings.SETTINGS.usage());
      System.exit(0);
      return;
    }
    Map<String, String> env = System.getenv();
    PluginConfig config;
    ResourceConfig resource;
    try {
      Resolved resolved =
          PluginSettings.SETTINGS.resolve(List.of(args), env, ConfigFile::sharedKeys);
      config = PluginConfig.from(resolved, env);
      resource = resource(config);
      LOG.info("device-plugin: {}", resolved.describe());
    } catch (InvalidConfigurationException e) {
      System.err.println("device-plugin: " + e.getMessage());
      System.exit(2);
      return;
    }
    KubernetesClient kube = kubeClient(config);
    TopologySource source;
    Discovery discovery;
    try {
      source =
          TopologySources.create(
              config.node().into(DiscoveryOptions::fromNodeSettings), rails(config, kube));
      discovery = source.discover();
    } catch (RuntimeException e) {
      System.err.println(
          "device-plugin: discovery failed on node "
              + config.node().nodeName()
              + ": "
              + e.getMessage());
      System.exit(1);
      return;
    }
    TopologySource rediscovery = source;
    run(config, resource, discovery, () -> rediscovery.discover().machine(), kube);
  }

  /**
   * The node's rail rule: {@code --rail-map}'s entry chosen by the Node's labels, read once, here,
   * through the API server (a health check rediscovers every few seconds: reading the Node each
   * time would load the API server of a large cluster). Without a client, by the labels it can see,
   * none, so that only an entry without a {@code nodeSelector} selects the node (docs/rails.md).
   *
   * @throws IllegalStateException when the Node cannot be read
   */
  private static NodeRails rails(PluginConfig config, KubernetesClient kube) {
    String node = config.node().nodeName();
    if (config.railMap() == null) {
      return NodeRails.byPciOrder();
    }
    if (kube == null) {
      LOG.info(
          "node {}: no API server, so the Node's labels are unknown: only an entry of --rail-map {}"
              + " without a nodeSelector can select this node",
          node,
          config.railMap());
      return new NodeRails(config.railMap(), Map::of);
    }
    Map<String, String> labels = NodeLabels.read(kube, node);
    return new NodeRails(config.railMap(), () -> labels);
  }

  /** The file's resource configuration with the two settings flags and environment may override. */
  private static ResourceConfig resource(PluginConfig config) {
    Path file = config.configFile();
    logSource(file, config.dropInConfig());
    ResourceConfig c =
        file == null
            ? ResourceConfig.DEFAULT
            : ResourceConfig.parse(ConfigFile.read(file), file.toString());
    return c.withResourceName(config.resourceName()).withHealthInterval(config.healthInterval());
  }

  /** Which file the configuration comes from: a drop-in file replaces a missing --config. */
  private static void logSource(Path file, Path dropIn) {
    if (file == null) {
      LOG.info(
          "configuration: none (no --config{}): mode hca", dropIn == null ? "" : ", no " + dropIn);
    } else if (file.equals(dropIn)) {
      LOG.info("configuration: {} (no --config given: the --drop-in-config file)", file);
    } else {
      LOG.info("configuration: {}", file);
    }
  }

  private static void run(
      PluginConfig config,
      ResourceConfig resource,
      Discovery discovery,
      Supplier<Machine> rescan,
      KubernetesClient kube) {
    // one event loop is plenty for a plugin; few workers (discovery is done, file reads are small)
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(2));
    Path sysfs = config.node().sysfsRoot();
    PendingPlans plans =
        kube == null
            ? null
            : new ApiServerPlans(
                vertx, kube, resource.resourceName(), resource.gpu().resourceName());
    Duration lookupTimeout = Duration.ofMillis(config.lookupTimeoutMs());
    PluginWiring wiring =
        PluginWiring.builder(
                discovery.machine(),
                resource,
                config.pluginDir().resolve(config.endpoint()),
                config.kubeletSocket())
            .sysfsRoot(sysfs)
            .probe(new PortStates(sysfs))
            .plans(plans)
            .podResources(
                new KubeletPodResources(vertx, config.podResourcesSocket(), lookupTimeout))
            .lookupTimeout(lookupTimeout)
            .backoff(PluginLifecycle.DEFAULT_BACKOFF)
            .gpuSocket(config.pluginDir().resolve(config.gpuEndpoint()))
            .deviceInfo(config.deviceInfoDir(), config.deviceInfoInterval())
            .rescan(rescan)
            .nvmlLibrary(config.nvmlLibrary())
            .build();
    DevicePlugin plugin = new DevicePlugin(vertx, wiring);
    LOG.info(
        "node {}: {} mode, {} HCAs offered as {} {} devices (topology from {})",
        config.node().nodeName(),
        resource.mode().value(),
        plugin.inventory().hcas().size(),
        plugin.inventory().devices().size(),
        resource.resourceName(),
        discovery.source());
    if (plugin.gpu() != null) {
      LOG.info(
          "node {}: joint mode, also {} GPUs as {} on {}",
          config.node().nodeName(),
          plugin.gpu().table().ids().size(),
          resource.gpu().resourceName(),
          config.gpuEndpoint());
    }
    if (resource.allocateAllDevices()) {
      LOG.info(
          "node {}: allocateAllDevices: every container asking for {} gets the character devices"
              + " of all {} offered RDMA devices; the ids granted stay the kubelet's",
          config.node().nodeName(),
          resource.resourceName(),
          plugin.inventory().devices().stream().map(d -> d.ibDevice()).distinct().count());
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info(
                      "stopping: removing this process's sockets from {}",
                      wiring.pluginSocket().getParent());
                  try {
                    plugin
                        .stop()
                        .eventually(vertx::close)
                        .toCompletionStage()
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS);
                  } catch (Exception e) {
                    LOG.warn("clean shutdown incomplete: {}", e.toString());
                  }
                },
                "device-plugin-shutdown"));
    plugin
        .listenOps(config.opsPort())
        .onSuccess(port -> LOG.info("serving /healthz, /readyz and /metrics on port {}", port))
        .onFailure(
            e -> exit("cannot listen on --ops-port " + config.opsPort() + ": " + e.getMessage()));
    plugin.start().onFailure(e -> exit("start failed: " + e.getMessage()));
    plugin.failed().onFailure(e -> exit(e.getMessage()));
  }

  private static void exit(String why) {
    LOG.error("{}", why);
    new Thread(() -> System.exit(1), "device-plugin-exit").start();
  }

  private static KubernetesClient kubeClient(PluginConfig config) {
    if (config.noKube()) {
      LOG.info(
          "API-server lookup disabled (--no-kube): preferred allocations follow GPUs only through the allocator");
      return null;
    }
    Optional<KubeConnection> connection =
        KubeConnection.find(
            config.kubeconfig(), System.getenv(), Path.of(System.getProperty("user.home")));
    if (connection.isEmpty()) {
      LOG.info(
          "API-server lookup disabled: not in a cluster and no readable kubeconfig ({}, else"
              + " ~/.kube/config)",
          config.kubeconfig() == null ? "--kubeconfig or KUBECONFIG" : config.kubeconfig());
      return null;
    }
    return connection.get().client();
  }
}
