package dev.tandem.deviceplugin.config;

import dev.tandem.api.ResourceNames;
import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Set;

/**
 * Joint mode: the plugin also serves full GPUs ({@code "gpu": {"enabled": true}}), for nodes where
 * NVIDIA's own device plugin is switched off.
 *
 * @param enabled whether {@code nvidia.com/gpu} is served by this plugin
 * @param cdi whether Allocate also names each GPU as a CDI device ({@code nvidia.com/gpu=<uuid>})
 * @param resourceName the GPU resource registered
 * @param reservation how long a container's joint choice waits for its second resource
 */
public record GpuConfig(boolean enabled, boolean cdi, String resourceName, Duration reservation) {

  public static final String DEFAULT_RESOURCE = ResourceNames.GPU;
  public static final GpuConfig OFF =
      new GpuConfig(false, false, DEFAULT_RESOURCE, Duration.ofSeconds(30));
  static final Set<String> KEYS = Set.of("enabled", "cdi", "resourceName", "reservationSeconds");

  public GpuConfig {
    ResourceConfig.checkName("gpu.resourceName", resourceName);
    if (reservation.isNegative() || reservation.isZero()) {
      throw new InvalidConfigurationException(
          "gpu.reservationSeconds must be at least 1, got " + reservation.toSeconds());
    }
  }

  /** Parses the {@code gpu} object; unknown keys were rejected by the caller. */
  static GpuConfig parse(JsonObject o) {
    int seconds = WholeNumbers.read(o, "gpu.", "reservationSeconds", 30);
    if (seconds < 1) {
      throw new InvalidConfigurationException(
          "gpu.reservationSeconds must be at least 1, got " + seconds);
    }
    return new GpuConfig(
        o.getBoolean("enabled", false),
        o.getBoolean("cdi", false),
        o.getString("resourceName", DEFAULT_RESOURCE),
        Duration.ofSeconds(seconds));
  }
}
