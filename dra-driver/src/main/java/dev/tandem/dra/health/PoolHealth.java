package dev.tandem.dra.health;

import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PublishedDevice;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The health of every device of the pool at one moment, the complete list the kubelet's health
 * stream sends each time: a device published with a taint is {@code UNHEALTHY} (the message names
 * the taint), one without is {@code HEALTHY}; when the driver's last look at the node failed, every
 * device of the last pool is {@code UNKNOWN}, the message saying why. Pure.
 *
 * @param devices one entry per device of the pool, in the pool's order
 * @param determined when the driver determined it
 * @param trustFor how long the kubelet may trust it; zero for the kubelet's default
 */
public record PoolHealth(List<DeviceCondition> devices, Instant determined, Duration trustFor) {

  public PoolHealth {
    devices = List.copyOf(devices);
  }

  /** The health the pool's taints say. */
  public static PoolHealth of(NodePool pool, Instant at, Duration trustFor) {
    return new PoolHealth(pool.devices().stream().map(d -> health(pool, d)).toList(), at, trustFor);
  }

  /** Every device of the last pool unknown, for {@code why}. */
  public static PoolHealth unknown(NodePool last, Instant at, Duration trustFor, String why) {
    return new PoolHealth(
        last.devices().stream()
            .map(
                d ->
                    new DeviceCondition(
                        last.poolName(), d.name(), DeviceCondition.Health.UNKNOWN, why))
            .toList(),
        at,
        trustFor);
  }

  /** How many devices are not healthy. */
  public long notHealthy() {
    return devices.stream().filter(d -> d.health() != DeviceCondition.Health.HEALTHY).count();
  }

  private static DeviceCondition health(NodePool pool, PublishedDevice d) {
    if (d.taints().isEmpty()) {
      return new DeviceCondition(pool.poolName(), d.name(), DeviceCondition.Health.HEALTHY, "");
    }
    String taints = d.taints().stream().map(PoolChange::text).collect(Collectors.joining(", "));
    return new DeviceCondition(
        pool.poolName(),
        d.name(),
        DeviceCondition.Health.UNHEALTHY,
        "published with taint " + taints + " (" + d.device().id() + ")");
  }
}
