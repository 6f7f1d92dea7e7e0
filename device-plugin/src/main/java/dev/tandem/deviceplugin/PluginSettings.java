package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.config.PluginConfig;
import dev.tandem.deviceplugin.inventory.HealthProbe;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.time.Clock;

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
    Clock clock) {

  public static final String DEFAULT_GPU_ENDPOINT = "tandem-gpu.sock";

  /** GPU socket {@code tandem-gpu.sock} next to the plugin's, system clock. */
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
