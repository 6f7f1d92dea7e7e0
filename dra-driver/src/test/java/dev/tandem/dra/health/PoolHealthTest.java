package dev.tandem.dra.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the pool's health: taints are UNHEALTHY, a failed look UNKNOWN, changes in words")
class PoolHealthTest {

  static final Instant AT = Instant.parse("2026-11-28T07:00:00Z");
  static final Machine NODE = TestMachines.twoSwitchesAndLoneHca("n1");

  static NodePool pool(Machine m) {
    return PoolBuilder.build(m, new PoolSpec("tandem.dev", false));
  }

  static Map<String, DeviceCondition.Health> byDevice(PoolHealth h) {
    return h.devices().stream()
        .collect(Collectors.toMap(DeviceCondition::device, DeviceCondition::health));
  }

  @Test
  @DisplayName("every device of the pool, HEALTHY without a taint, UNHEALTHY naming its taint")
  void ofPool() {
    PoolHealth healthy = PoolHealth.of(pool(NODE), AT, Duration.ofSeconds(180));
    assertEquals(
        Map.of(
            "mlx5-0", DeviceCondition.Health.HEALTHY,
            "mlx5-1", DeviceCondition.Health.HEALTHY,
            "mlx5-2", DeviceCondition.Health.HEALTHY),
        byDevice(healthy));
    assertTrue(healthy.devices().stream().allMatch(d -> d.pool().equals("n1")));
    assertEquals(0, healthy.notHealthy());
    assertEquals(AT, healthy.determined());

    PoolHealth sick =
        PoolHealth.of(pool(TestMachines.withoutRdmaDriver(NODE, "mlx5_1")), AT, Duration.ZERO);
    DeviceCondition driverless =
        sick.devices().stream().filter(d -> d.device().startsWith("hca-")).findFirst().get();
    assertEquals(DeviceCondition.Health.UNHEALTHY, driverless.health());
    assertTrue(
        driverless.message().contains("tandem.dev/unhealthy=no-rdma-driver:NoSchedule"),
        driverless.message());
    assertEquals(1, sick.notHealthy());
  }

  @Test
  @DisplayName("a failed rediscovery: every device of the last pool UNKNOWN, saying why")
  void unknown() {
    PoolHealth h = PoolHealth.unknown(pool(NODE), AT, Duration.ofSeconds(3), "sysfs unreadable");
    assertEquals(3, h.devices().size());
    assertTrue(
        h.devices().stream()
            .allMatch(
                d ->
                    d.health() == DeviceCondition.Health.UNKNOWN
                        && d.message().equals("sysfs unreadable")));
  }

  @Test
  @DisplayName("a message longer than the kubelet keeps is cut to 1024 characters, ending ...")
  void longMessage() {
    DeviceCondition d =
        new DeviceCondition("n1", "mlx5-0", DeviceCondition.Health.UNKNOWN, "x".repeat(2000));
    assertEquals(DeviceCondition.MAX_MESSAGE, d.message().length());
    assertTrue(d.message().endsWith("..."));
  }

  @Test
  @DisplayName("PoolChange: nothing for the same pool; taints, new and gone devices named")
  void change() {
    NodePool before = pool(NODE);
    assertEquals("", PoolChange.describe(before, pool(NODE)));
    NodePool after = pool(TestMachines.withoutRdmaDriver(NODE, "mlx5_1"));
    assertEquals(
        "hca-0000-21-00-0 new tainted tandem.dev/unhealthy=no-rdma-driver:NoSchedule;"
            + " mlx5-1 gone",
        PoolChange.describe(before, after));
    assertEquals("mlx5-1 new; hca-0000-21-00-0 gone", PoolChange.describe(after, before));
  }

  @Test
  @DisplayName(
      "HealthFeed: a subscriber hears the latest at once, then each new one, until it leaves")
  void feed() {
    HealthFeed feed = new HealthFeed();
    PoolHealth first = PoolHealth.of(pool(NODE), AT, Duration.ZERO);
    PoolHealth second = PoolHealth.unknown(pool(NODE), AT.plusSeconds(60), Duration.ZERO, "x");
    List<PoolHealth> heard = new ArrayList<>();
    Runnable early = feed.subscribe(heard::add);
    assertTrue(heard.isEmpty(), "nothing determined yet");
    feed.publish(first);
    List<PoolHealth> late = new ArrayList<>();
    feed.subscribe(late::add);
    assertEquals(List.of(first), late, "the latest at once");
    assertEquals(2, feed.subscribers());
    early.run();
    feed.publish(second);
    assertEquals(List.of(first), heard, "gone before the second");
    assertEquals(List.of(first, second), late);
    assertEquals(second, feed.latest().orElseThrow());
    assertEquals(1, feed.subscribers());
  }
}
