package dev.tandem.deviceplugin.standin;

import dev.tandem.deviceplugin.PluginWiring;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.PortStates;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The wiring of a plugin on {@code <dir>/tandem-rdma.sock} registered with a kubelet stand-in: port
 * states read from {@code sysfs}, lookups bounded by 500 ms, registration retried fast (100 ms to
 * 400 ms, 5 attempts). A test adds what it exercises and builds.
 */
public final class StandInWiring {

  private StandInWiring() {}

  public static PluginWiring.Builder of(
      Machine machine, ResourceConfig config, Path dir, Path sysfs, KubeletStandIn kubelet) {
    return PluginWiring.builder(machine, config, dir.resolve("tandem-rdma.sock"), kubelet.socket())
        .sysfsRoot(sysfs)
        .probe(new PortStates(sysfs))
        .lookupTimeout(Duration.ofMillis(500))
        .backoff(new Backoff(Duration.ofMillis(100), Duration.ofMillis(400), 5));
  }
}
