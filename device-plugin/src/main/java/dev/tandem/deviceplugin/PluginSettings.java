package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.config.PluginConfig;
import dev.tandem.deviceplugin.inventory.HealthProbe;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Everything a running plugin needs, resolved from flags, config and discovery.
 *
 * @param machine the node's topology
 * @param config mode, resource, selectors, health interval
 * @param pluginSocket this plugin's socket ({@code <plugin-dir>/<endpoint>})
 * @param kubeletSocket the kubelet's registration socket
 * @param sysfsRoot where {@code /sys} resolves (uverbs devices, port states)
 * @param probe port-state reader
 * @param plans pending pods with plans; null disables the API-server lookup
 * @param podResources the kubelet's PodResources; null disables the GPU lookup
 * @param lookupTimeoutMs bound on each lookup
 * @param backoff registration retries
 * @param gpuSocket the GPU plugin's socket in joint mode ({@code <plugin-dir>/<gpu-endpoint>})
 * @param clock time of joint-mode reservations
 * @param deviceInfoDir where Device Information files for CNI plugins go; null writes none
 * @param deviceInfoInterval how often those files are reconciled against PodResources
 * @param rescan a new discovery of the node; each health check runs it, so devices that appear (VFs
 *     re-created, an HCA whose RDMA driver was loaded after start) are offered without a restart.
 *     Null: the devices found at start stay
 */
public record PluginSettings(
    Machine machine,
    PluginConfig config,
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
    Supplier<Machine> rescan) {

  public static final String DEFAULT_GPU_ENDPOINT = "tandem-gpu.sock";

  /** No rescans: the devices found at start stay. */
  public PluginSettings(
      Machine machine,
      PluginConfig config,
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
      Duration deviceInfoInterval) {
    this(
        machine,
        config,
        pluginSocket,
        kubeletSocket,
        sysfsRoot,
        probe,
        plans,
        podResources,
        lookupTimeoutMs,
        backoff,
        gpuSocket,
        clock,
        deviceInfoDir,
        deviceInfoInterval,
        null);
  }

  /** No Device Information files. */
  public PluginSettings(
      Machine machine,
      PluginConfig config,
      Path pluginSocket,
      Path kubeletSocket,
      Path sysfsRoot,
      HealthProbe probe,
      PendingPlans plans,
      PodResourcesSource podResources,
      long lookupTimeoutMs,
      Backoff backoff,
      Path gpuSocket,
      Clock clock) {
    this(
        machine,
        config,
        pluginSocket,
        kubeletSocket,
        sysfsRoot,
        probe,
        plans,
        podResources,
        lookupTimeoutMs,
        backoff,
        gpuSocket,
        clock,
        null,
        Duration.ofSeconds(10));
  }

  /**
   * GPU socket {@code tandem-gpu.sock} next to the plugin's, system clock, no Device Information
   * files.
   */
  public PluginSettings(
      Machine machine,
      PluginConfig config,
      Path pluginSocket,
      Path kubeletSocket,
      Path sysfsRoot,
      HealthProbe probe,
      PendingPlans plans,
      PodResourcesSource podResources,
      long lookupTimeoutMs,
      Backoff backoff) {
    this(
        machine,
        config,
        pluginSocket,
        kubeletSocket,
        sysfsRoot,
        probe,
        plans,
        podResources,
        lookupTimeoutMs,
        backoff,
        pluginSocket.resolveSibling(DEFAULT_GPU_ENDPOINT),
        Clock.systemUTC());
  }
}
