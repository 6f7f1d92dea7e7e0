package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.cli.PluginFlags;
import dev.tandem.deviceplugin.cli.UsageException;
import dev.tandem.deviceplugin.config.ConfigException;
import dev.tandem.deviceplugin.config.PluginConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.deviceplugin.lifecycle.Backoff;
import dev.tandem.deviceplugin.pods.ApiServerPlans;
import dev.tandem.deviceplugin.pods.KubeletPodResources;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the device-plugin jar: flags, config, discovery, then the plugin until SIGTERM.
 */
public final class DevicePluginMain {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePluginMain.class);

  private DevicePluginMain() {}

  public static void main(String[] args) {
    PluginFlags flags;
    PluginConfig config;
    try {
      flags = PluginFlags.parse(args, System.getenv());
      if (flags.help()) {
        System.out.print(PluginFlags.USAGE);
        System.exit(0);
      }
      config = config(flags);
    } catch (UsageException | ConfigException e) {
      System.err.println("device-plugin: " + e.getMessage());
      System.exit(2);
      return;
    }
    Discovery discovery;
    try {
      discovery =
          TopologySources.discoverOnce(
              new DiscoveryOptions(
                  flags.nodeName(),
                  flags.hwlocXml(),
                  flags.sysfsRoot(),
                  flags.ncclTopo(),
                  flags.hwlocXml() == null && flags.ncclTopo() == null));
    } catch (DiscoveryException | IllegalArgumentException e) {
      System.err.println(
          "device-plugin: discovery failed on node " + flags.nodeName() + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    run(flags, config, discovery);
  }

  private static PluginConfig config(PluginFlags flags) {
    PluginConfig c = PluginConfig.DEFAULT;
    if (flags.config() != null) {
      try {
        c = PluginConfig.parse(Files.readString(flags.config()), flags.config().toString());
      } catch (IOException e) {
        throw new ConfigException("cannot read config file " + flags.config() + ": " + e);
      }
    }
    if (flags.resourceName() != null) {
      c = c.withResourceName(flags.resourceName());
    }
    if (flags.healthIntervalSeconds() != null) {
      c = c.withHealthInterval(Duration.ofSeconds(flags.healthIntervalSeconds()));
    }
    return c;
  }

  private static void run(PluginFlags flags, PluginConfig config, Discovery discovery) {
    // one event loop is plenty for a plugin; few workers (discovery is done, file reads are small)
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(4)
                .setInternalBlockingPoolSize(2));
    Path sysfs = flags.sysfsRoot() == null ? DiscoveryOptions.HOST_ROOT : flags.sysfsRoot();
    KubernetesClient kube = kubeClient(flags);
    PendingPlans plans =
        kube == null
            ? null
            : new ApiServerPlans(vertx, kube, config.resourceName(), config.gpu().resourceName());
    PodResourcesSource podResources =
        new KubeletPodResources(
            vertx, flags.podResourcesSocket(), Duration.ofMillis(flags.lookupTimeoutMs()));
    PluginSettings settings =
        new PluginSettings(
            discovery.machine(),
            config,
            flags.pluginDir().resolve(flags.endpoint()),
            flags.kubeletSocket(),
            sysfs,
            new PortStates(sysfs),
            plans,
            podResources,
            flags.lookupTimeoutMs(),
            Backoff.DEFAULT,
            flags.pluginDir().resolve(flags.gpuEndpoint()),
            Clock.systemUTC());
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
    Map<String, String> env = System.getenv();
    Path kubeconfig =
        flags.kubeconfig() != null
            ? flags.kubeconfig()
            : env.containsKey("KUBECONFIG")
                ? Path.of(env.get("KUBECONFIG"))
                : Path.of(System.getProperty("user.home"), ".kube", "config");
    boolean inCluster = env.containsKey("KUBERNETES_SERVICE_HOST");
    if (!inCluster && !Files.isReadable(kubeconfig)) {
      LOG.info("API-server lookup disabled: not in a cluster and no kubeconfig at {}", kubeconfig);
      return null;
    }
    Config cfg =
        !inCluster || flags.kubeconfig() != null
            ? Config.fromKubeconfig(null, readQuietly(kubeconfig), kubeconfig.toString())
            : Config.autoConfigure(null);
    return new KubernetesClientBuilder().withConfig(cfg).build();
  }

  private static String readQuietly(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new ConfigException("cannot read kubeconfig " + p + ": " + e);
    }
  }
}
