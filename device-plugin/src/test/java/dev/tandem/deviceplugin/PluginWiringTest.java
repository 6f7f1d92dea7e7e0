package dev.tandem.deviceplugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.HealthProbe;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the device plugin's wiring, built by name")
class PluginWiringTest {

  final Machine machine = TestMachines.twoSockets("n1");
  final Path dir = Path.of("/var/lib/kubelet/device-plugins");
  final Path pluginSocket = dir.resolve("tandem-rdma.sock");
  final Path kubeletSocket = dir.resolve("kubelet.sock");
  final Path sysfs = Path.of("/host/sys");
  final HealthProbe probe = ib -> Optional.of(true);
  final Backoff backoff = new Backoff(Duration.ofMillis(100), Duration.ofMillis(400), 5);

  private PluginWiring.Builder required() {
    return PluginWiring.builder(machine, ResourceConfig.DEFAULT, pluginSocket, kubeletSocket)
        .sysfsRoot(sysfs)
        .probe(probe)
        .lookupTimeout(Duration.ofMillis(500))
        .backoff(backoff);
  }

  @Test
  @DisplayName(
      "unset: no lookups, tandem-gpu.sock next to the plugin's socket, the UTC system clock, no"
          + " Device Information files every 10 s, no rescan, the driver's libnvidia-ml.so.1")
  void defaults() {
    PluginWiring expected =
        new PluginWiring(
            machine,
            ResourceConfig.DEFAULT,
            pluginSocket,
            kubeletSocket,
            sysfs,
            probe,
            null,
            null,
            500,
            backoff,
            dir.resolve("tandem-gpu.sock"),
            Clock.systemUTC(),
            null,
            Duration.ofSeconds(10),
            null,
            "libnvidia-ml.so.1");
    assertEquals(expected, required().build());
  }

  @Test
  @DisplayName("each setter fills its own component")
  void setters() {
    PendingPlans plans = node -> Future.succeededFuture(List.of());
    PodResourcesSource podResources = () -> Future.failedFuture("off");
    Clock clock = Clock.fixed(Instant.parse("2026-11-25T00:00:00Z"), ZoneOffset.UTC);
    Supplier<Machine> rescan = () -> machine;
    PluginWiring expected =
        new PluginWiring(
            machine,
            ResourceConfig.DEFAULT,
            pluginSocket,
            kubeletSocket,
            sysfs,
            probe,
            plans,
            podResources,
            750,
            backoff,
            dir.resolve("gpu.sock"),
            clock,
            Path.of("/var/run/k8s.cni.cncf.io/devinfo/dp"),
            Duration.ofSeconds(30),
            rescan,
            "/opt/nvidia/libnvidia-ml.so.1");
    PluginWiring built =
        required()
            .plans(plans)
            .podResources(podResources)
            .lookupTimeout(Duration.ofMillis(750))
            .gpuSocket(dir.resolve("gpu.sock"))
            .clock(clock)
            .deviceInfo(Path.of("/var/run/k8s.cni.cncf.io/devinfo/dp"), Duration.ofSeconds(30))
            .rescan(rescan)
            .nvmlLibrary("/opt/nvidia/libnvidia-ml.so.1")
            .build();
    assertEquals(expected, built);
  }

  @Test
  @DisplayName("build() names every required component left unset")
  void missingRequired() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                PluginWiring.builder(machine, ResourceConfig.DEFAULT, pluginSocket, kubeletSocket)
                    .build());
    assertEquals(
        "device plugin wiring: sysfsRoot, probe, lookupTimeout, backoff not set; set each on"
            + " PluginWiring.builder(..) before build()",
        e.getMessage());
  }

  @Test
  @DisplayName("build() names a null required argument of builder(..) instead of failing later")
  void nullBuilderArgument() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                PluginWiring.builder(machine, ResourceConfig.DEFAULT, null, kubeletSocket)
                    .sysfsRoot(sysfs)
                    .probe(probe)
                    .lookupTimeout(Duration.ofMillis(500))
                    .backoff(backoff)
                    .build());
    assertTrue(
        e.getMessage().startsWith("device plugin wiring: pluginSocket not set"), e::getMessage);
  }
}
