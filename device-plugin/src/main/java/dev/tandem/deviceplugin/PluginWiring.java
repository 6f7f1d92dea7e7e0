package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.HealthProbe;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a running plugin is wired from: the components the composition root ({@link
 * DevicePluginMain}, or a test) builds from the plugin's configuration and the node's discovery,
 * and {@link DevicePlugin} assembles. Not settings: those are {@code cli.PluginSettings}. Built
 * with {@link #builder}, which names each component and holds the defaults.
 *
 * @param machine the node's topology
 * @param config mode, resource, selectors, health interval
 * @param pluginSocket {@code <plugin-dir>/<endpoint>}, after which its sockets are named ({@code
 *     lifecycle.PluginSockets})
 * @param kubeletSocket the kubelet's registration socket
 * @param sysfsRoot where {@code /sys} resolves (uverbs devices, port states)
 * @param probe port-state reader
 * @param plans pending pods with plans; null disables the API-server lookup
 * @param podResources the kubelet's PodResources; null disables the GPU lookup
 * @param lookupTimeoutMs bound on each lookup
 * @param backoff registration retries
 * @param gpuSocket the GPU plugin's socket in joint mode ({@code <plugin-dir>/<gpu-endpoint>})
 * @param clock time of joint-mode reservations, restart storms and the other time-bound state
 * @param deviceInfoDir where Device Information files for CNI plugins go; null writes none
 * @param deviceInfoInterval how often those files are reconciled against PodResources
 * @param rescan a new discovery of the node; each health check runs it, so devices that appear (VFs
 *     re-created, an HCA whose RDMA driver was loaded after start) are offered without a restart.
 *     Null: the devices found at start stay
 * @param nvmlLibrary the NVML library of joint mode's GPU health probe
 */
public record PluginWiring(
    Machine machine,
    ResourceConfig config,
    Path pluginSocket,
    Path kubeletSocket,
    Path sysfsRoot,
    HealthProbe probe,
    PendingPlans plans,
    PodResourcesSource podResources,
    long lookupTimeoutMs,
    Backoff backoff,
    Path gpuSocket,
    Clock clock,
    Path deviceInfoDir,
    Duration deviceInfoInterval,
    Supplier<Machine> rescan,
    String nvmlLibrary) {

  /** The GPU plugin's socket file name next to the plugin's when none is set. */
  public static final String DEFAULT_GPU_ENDPOINT = "tandem-gpu.sock";

  /** How often Device Information files are reconciled when no interval is set. */
  public static final Duration DEFAULT_DEVICE_INFO_INTERVAL = Duration.ofSeconds(10);

  /**
   * The wiring of a plugin for this node's topology and config, served on these two sockets; see
   * {@link Builder}.
   */
  public static Builder builder(
      Machine machine, ResourceConfig config, Path pluginSocket, Path kubeletSocket) {
    return new Builder(machine, config, pluginSocket, kubeletSocket);
  }

  /**
   * Builds {@link PluginWiring} by name. Required, else {@link #build()} fails naming them: the
   * four arguments of {@link PluginWiring#builder}, {@link #sysfsRoot}, {@link #probe}, {@link
   * #lookupTimeout} and {@link #backoff}. Defaults of the rest:
   *
   * <ul>
   *   <li>{@link #plans} and {@link #podResources}: none, that lookup is off;
   *   <li>{@link #gpuSocket}: {@value PluginWiring#DEFAULT_GPU_ENDPOINT} next to the plugin's
   *       socket;
   *   <li>{@link #clock}: the system clock in UTC;
   *   <li>{@link #deviceInfo}: no directory, no files written; interval {@link
   *       PluginWiring#DEFAULT_DEVICE_INFO_INTERVAL} (10 s);
   *   <li>{@link #rescan}: none, the devices found at start stay;
   *   <li>{@link #nvmlLibrary}: {@value Nvml#LIBRARY}.
   * </ul>
   */
  public static final class Builder {

    private final Machine machine;
    private final ResourceConfig config;
    private final Path pluginSocket;
    private final Path kubeletSocket;
    private Path sysfsRoot;
    private HealthProbe probe;
    private PendingPlans plans;
    private PodResourcesSource podResources;
    private Duration lookupTimeout;
    private Backoff backoff;
    private Path gpuSocket;
    private Clock clock = Clock.systemUTC();
    private Path deviceInfoDir;
    private Duration deviceInfoInterval = DEFAULT_DEVICE_INFO_INTERVAL;
    private Supplier<Machine> rescan;
    private String nvmlLibrary = Nvml.LIBRARY;

    private Builder(Machine machine, ResourceConfig config, Path pluginSocket, Path kubeletSocket) {
      this.machine = machine;
      this.config = config;
      this.pluginSocket = pluginSocket;
      this.kubeletSocket = kubeletSocket;
    }

    /** Where {@code /sys} resolves. */
    public Builder sysfsRoot(Path root) {
      this.sysfsRoot = root;
      return this;
    }

    /** The port-state reader. */
    public Builder probe(HealthProbe probe) {
      this.probe = probe;
      return this;
    }

    /** Pending pods with plans; null turns the API-server lookup off. */
    public Builder plans(PendingPlans plans) {
      this.plans = plans;
      return this;
    }

    /** The kubelet's PodResources; null turns the lookup off. */
    public Builder podResources(PodResourcesSource podResources) {
      this.podResources = podResources;
      return this;
    }

    /** The bound on each lookup, kept in milliseconds. */
    public Builder lookupTimeout(Duration timeout) {
      this.lookupTimeout = timeout;
      return this;
    }

    /** Registration retries. */
    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    /** The GPU plugin's socket in joint mode. */
    public Builder gpuSocket(Path socket) {
      this.gpuSocket = socket;
      return this;
    }

    /** The time of joint-mode reservations. */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Device Information files go to {@code dir} (null: none), reconciled every {@code interval}.
     */
    public Builder deviceInfo(Path dir, Duration interval) {
      this.deviceInfoDir = dir;
      this.deviceInfoInterval = interval;
      return this;
    }

    /** A new discovery of the node, run by each health check; null: no rescans. */
    public Builder rescan(Supplier<Machine> rescan) {
      this.rescan = rescan;
      return this;
    }

    /** The NVML library of joint mode's GPU health probe (a name the loader finds, or a path). */
    public Builder nvmlLibrary(String library) {
      this.nvmlLibrary = library;
      return this;
    }

    /**
     * The wiring.
     *
     * @throws IllegalStateException naming every required component left unset
     */
    public PluginWiring build() {
      List<String> missing = new ArrayList<>();
      require(missing, "machine", machine);
      require(missing, "config", config);
      require(missing, "pluginSocket", pluginSocket);
      require(missing, "kubeletSocket", kubeletSocket);
      require(missing, "sysfsRoot", sysfsRoot);
      require(missing, "probe", probe);
      require(missing, "lookupTimeout", lookupTimeout);
      require(missing, "backoff", backoff);
      require(missing, "clock", clock);
      require(missing, "deviceInfo interval", deviceInfoInterval);
      require(missing, "nvmlLibrary", nvmlLibrary);
      if (!missing.isEmpty()) {
        throw new IllegalStateException(
            "device plugin wiring: "
                + String.join(", ", missing)
                + " not set; set each on PluginWiring.builder(..) before build()");
      }
      return new PluginWiring(
          machine,
          config,
          pluginSocket,
          kubeletSocket,
          sysfsRoot,
          probe,
          plans,
          podResources,
          lookupTimeout.toMillis(),
          backoff,
          gpuSocket != null ? gpuSocket : pluginSocket.resolveSibling(DEFAULT_GPU_ENDPOINT),
          clock,
          deviceInfoDir,
          deviceInfoInterval,
          rescan,
          nvmlLibrary);
    }

    private static void require(List<String> missing, String name, Object value) {
      if (value == null) {
        missing.add(name);
      }
    }
  }
}
