package dev.tandem.agent.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.nvml.MigGpu;
import dev.tandem.fixtures.MovableClock;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("MIG discovery: NVML read only when the kubelet's MIG ids need it")
class MigDiscoveryTest {

  private final Machine machine = TestMachines.twoSwitchesAndLoneHca("gpu-1");
  private final AtomicInteger reads = new AtomicInteger();
  private final MovableClock clock = new MovableClock(Instant.parse("2026-11-24T20:00:00Z"));

  private MigDiscovery discovery(Supplier<List<MigGpu>> nvml) {
    return new MigDiscovery(
        "libnvidia-ml.so.1",
        () -> {
          reads.incrementAndGet();
          return nvml.get();
        },
        clock,
        Duration.ofMinutes(5));
  }

  private static MigGpu gpu(String uuid, String... migs) {
    return new MigGpu(uuid, null, List.of(migs));
  }

  @Test
  @DisplayName("no MIG id, or only the older form that names its GPU: NVML is never read")
  void notUseful() {
    MigDiscovery d = discovery(List::of);
    List<String> notes = new ArrayList<>();
    assertEquals(MigLayout.NONE, d.layout(machine, List.of("GPU-a0", "mlx5_0"), notes));
    assertEquals(
        MigLayout.NONE, d.layout(machine, List.of("MIG-GPU-a0/7/0", "MIG-GPU-b0/8/0::1"), notes));
    assertEquals(0, reads.get());
    assertEquals(List.of(), notes);
  }

  @Test
  @DisplayName("read once per set of unknown MIG ids: again after a MIG reconfiguration")
  void readAgainWhenIdsChange() {
    List<MigGpu> nvml = new ArrayList<>(List.of(gpu("GPU-a0", "MIG-1", "MIG-2")));
    MigDiscovery d = discovery(() -> List.copyOf(nvml));
    List<String> notes = new ArrayList<>();
    MigLayout first = d.layout(machine, List.of("MIG-1", "MIG-2::0", "MIG-2::1"), notes);
    assertEquals(List.of(new MigEntry("GPU-a0", List.of("MIG-1", "MIG-2"))), first.entries());
    d.layout(machine, List.of("MIG-1", "MIG-2"), notes);
    assertEquals(1, reads.get());

    nvml.set(0, gpu("GPU-a0", "MIG-3"));
    MigLayout second = d.layout(machine, List.of("MIG-3"), notes);
    assertEquals(List.of(new MigEntry("GPU-a0", List.of("MIG-3"))), second.entries());
    assertEquals(2, reads.get());
    d.layout(machine, List.of("MIG-3", "MIG-unknown"), notes);
    d.layout(machine, List.of("MIG-3", "MIG-unknown"), notes);
    assertEquals(3, reads.get(), "an id NVML does not know is asked about once");
    assertEquals(List.of(), notes);
    assertEquals(MigLayout.NONE, d.layout(machine, List.of("GPU-a0"), notes), "MIG disabled");
  }

  @Test
  @DisplayName("a failure is a note on every poll, retried only after the retry interval")
  void failureRetried() {
    AtomicInteger failures = new AtomicInteger(1);
    MigDiscovery d =
        discovery(
            () -> {
              if (failures.getAndDecrement() > 0) {
                throw new DiscoveryException("NVML library libnvidia-ml.so.1 cannot be loaded (x)");
              }
              return List.of(gpu("GPU-b0", "MIG-1"));
            });
    List<String> notes = new ArrayList<>();
    assertEquals(MigLayout.NONE, d.layout(machine, List.of("MIG-1"), notes));
    assertEquals(MigLayout.NONE, d.layout(machine, List.of("MIG-1"), notes));
    assertEquals(1, reads.get());
    assertEquals(2, notes.size());
    assertTrue(
        notes
            .get(0)
            .startsWith(
                "the kubelet reports MIG devices (1, e.g. MIG-1) that only NVML can map to their"
                    + " GPUs, and NVML (libnvidia-ml.so.1) cannot be read: NVML library"),
        notes.get(0));

    clock.advance(Duration.ofMinutes(5));
    notes.clear();
    MigLayout after = d.layout(machine, List.of("MIG-1"), notes);
    assertEquals(List.of(new MigEntry("GPU-b0", List.of("MIG-1"))), after.entries());
    assertEquals(2, reads.get());
    assertEquals(List.of(), notes);
  }

  @Test
  @DisplayName("a GPU NVML reports that discovery did not find is a note; the others are mapped")
  void gpuOutsideTheTree() {
    MigDiscovery d =
        discovery(() -> List.of(gpu("GPU-elsewhere", "MIG-9"), gpu("GPU-a1", "MIG-1")));
    List<String> notes = new ArrayList<>();
    MigLayout layout = d.layout(machine, List.of("MIG-1", "MIG-9"), notes);
    assertEquals(List.of(new MigEntry("GPU-a1", List.of("MIG-1"))), layout.entries());
    assertEquals(1, notes.size(), notes.toString());
    assertTrue(
        notes.get(0).startsWith("NVML reports GPU GPU-elsewhere at an unknown bus id"),
        notes.get(0));
  }
}
