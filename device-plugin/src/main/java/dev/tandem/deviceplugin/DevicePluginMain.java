package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.cli.ConfigFile;
import dev.tandem.deviceplugin.cli.PluginFlags;
import dev.tandem.deviceplugin.config.ConfigException;
import dev.tandem.deviceplugin.config.PluginConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.pods.ApiServerPlans;
import dev.tandem.deviceplugin.pods.KubeletPodResources;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySource;
import dev.tandem.discovery.TopologySources;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.kube.KubeConnection;
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
 * Entry point of the device-plugin jar: flags, config, discovery, then the plugin until SIGTERM.
 */
public final class DevicePluginMain {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginMain.class);

  private DevicePluginMain() {}

  public static void main(String[] args) {
    if (Settings.wantsHelp(List.of(args))) {
      System.out.print(PluginFlags.SETTINGS.usage());
      System.exit(0);
      return;
    }
    Map<String, String> env = System.getenv();
    PluginFlags flags;
    PluginConfig config;
    try {
      Resolved resolved = PluginFlags.SETTINGS.resolve(List.of(args), env, ConfigFile::sharedKeys);
      flags = PluginFlags.from(resolved, env);
      config = config(flags);
      LOG.info("device-plugin: {}", resolved.describe());
    } catch (InvalidConfigurationException | ConfigException e) {
      System.err.println("device-plugin: " + e.getMessage());
      System.exit(2);
      return;
    }
    TopologySource source;
    Discovery discovery;
    try {
      source =
          TopologySources.create(
              new DiscoveryOptions(
                  flags.nodeName(),
                  flags.hwlocXml(),
                  flags.sysfsRoot(),
                  flags.ncclTopo(),
                  flags.hwlocXml() == null && flags.ncclTopo() == null));
      discovery = source.discover();
    } catch (DiscoveryException | IllegalArgumentException e) {
      System.err.println(
          "device-plugin: discovery failed on node " + flags.nodeName() + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    TopologySource rediscovery = source;
    run(flags, config, discovery, () -> rediscovery.discover().machine());
  }

  /** The file's configuration with the two settings flags and environment may override. */
  private static PluginConfig config(PluginFlags flags) {
    Path file = flags.config();
    logSource(file, flags.dropInConfig());
    PluginConfig c =
        file == null
            ? PluginConfig.DEFAULT
            : PluginConfig.parse(ConfigFile.read(file), file.toString());
    return c.withResourceName(flags.resourceName()).withHealthInterval(flags.healthInterval());
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
      PluginFlags flags, PluginConfig config, Discovery discovery, Supplier<Machine> rescan) {
    // one event loop is plenty for a plugin; few workers (discovery is done, file reads are small)
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(2));
    Path sysfs = flags.sysfsRoot();
    KubernetesClient kube = kubeClient(flags);
    PendingPlans plans =
        kube == null
            ? null
            : new ApiServerPlans(vertx, kube, config.resourceName(), config.gpu().resourceName());
    Duration lookupTimeout = Duration.ofMillis(flags.lookupTimeoutMs());
    PluginSettings settings =
        PluginSettings.builder(
                discovery.machine(),
                config,
                flags.pluginDir().resolve(flags.endpoint()),
                flags.kubeletSocket())
            .sysfsRoot(sysfs)
            .probe(new PortStates(sysfs))
            .plans(plans)
            .podResources(new KubeletPodResources(vertx, flags.podResourcesSocket(), lookupTimeout))
            .lookupTimeout(lookupTimeout)
            .backoff(PluginLifecycle.DEFAULT_BACKOFF)
            .gpuSocket(flags.pluginDir().resolve(flags.gpuEndpoint()))
            .deviceInfo(flags.deviceInfoDir(), flags.deviceInfoInterval())
            .rescan(rescan)
            .nvmlLibrary(flags.nvmlLibrary())
            .build();
    DevicePlugin plugin = new DevicePlugin(vertx, settings);
    LOG.info(
        "node {}: {} mode, {} HCAs offered as {} {} devices (topology from {})",
        flags.nodeName(),
        config.mode().value(),
        plugin.inventory().hcas().size(),
        plugin.inventory().devices().size(),
        config.resourceName(),
        discovery.source());
    if (plugin.gpu() != null) {
      LOG.info(
          "node {}: joint mode, also {} GPUs as {} on {}",
          flags.nodeName(),
          plugin.gpu().table().ids().size(),
          config.gpu().resourceName(),
          flags.gpuEndpoint());
    }
    if (config.allocateAllDevices()) {
      LOG.info(
          "node {}: allocateAllDevices: every container asking for {} gets the character devices"
              + " of all {} offered RDMA devices; the ids granted stay the kubelet's",
          flags.nodeName(),
          config.resourceName(),
          plugin.inventory().devices().stream().map(d -> d.ibDevice()).distinct().count());
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  LOG.info("stopping: removing {}", settings.pluginSocket());
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
        .listenOps(flags.opsPort())
        .onSuccess(port -> LOG.info("serving /healthz, /readyz and /metrics on port {}", port))
        .onFailure(
            e -> exit("cannot listen on --ops-port " + flags.opsPort() + ": " + e.getMessage()));
    plugin.start().onFailure(e -> exit("start failed: " + e.getMessage()));
    plugin.failed().onFailure(e -> exit(e.getMessage()));
  }

  private static void exit(String why) {
    LOG.error("{}", why);
    new Thread(() -> System.exit(1), "device-plugin-exit").start();
  }

  private static KubernetesClient kubeClient(PluginFlags flags) {
    if (flags.noKube()) {
      LOG.info(
          "API-server lookup disabled (--no-kube): preferred allocations follow GPUs only through the allocator");
      return null;
    }
    Optional<KubeConnection> connection =
        KubeConnection.find(
            flags.kubeconfig(), System.getenv(), Path.of(System.getProperty("user.home")));
    if (connection.isEmpty()) {
      LOG.info(
          "API-server lookup disabled: not in a cluster and no readable kubeconfig ({}, else"
              + " ~/.kube/config)",
          flags.kubeconfig() == null ? "--kubeconfig or KUBECONFIG" : flags.kubeconfig());
      return null;
    }
    return connection.get().client();
  }
}
