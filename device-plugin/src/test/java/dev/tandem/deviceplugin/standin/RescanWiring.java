package dev.tandem.deviceplugin.standin;

import dev.tandem.deviceplugin.PluginWiring;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.discovery.TopologySource;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The wiring of a plugin that reads its node through {@code source} (a sysfs tree the test changes
 * while it runs) and rediscovers it at each health check, every second, registered with a stand-in
 * kubelet: no API server, no PodResources, no Device Information files.
 */
public final class RescanWiring {

  private RescanWiring() {}

  /**
   * @param dir where the plugin's sockets go
   * @param sysfs the root of the node's tree
   */
  public static PluginWiring of(
      TopologySource source, ResourceConfig config, Path dir, Path sysfs, KubeletStandIn kubelet) {
    return of(source, config, null, null, dir, sysfs, kubelet);
  }

  /**
   * As above, with the pending pods' plans and the kubelet's PodResources that preferred
   * allocations follow (null: none).
   */
  public static PluginWiring of(
      TopologySource source,
      ResourceConfig config,
      PendingPlans plans,
      PodResourcesSource podResources,
      Path dir,
      Path sysfs,
      KubeletStandIn kubelet) {
    return StandInWiring.of(
            source.discover().machine(),
            config.withHealthInterval(Duration.ofSeconds(1)),
            dir,
            sysfs,
            kubelet)
        .plans(plans)
        .podResources(podResources)
        .rescan(() -> source.discover().machine())
        .build();
  }
}
