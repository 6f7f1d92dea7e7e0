package dev.tandem.deviceplugin.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.nvml.FakeNvml;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The joint-mode GPU health probe on topology-discovery's NVML binding, against the fake NVML. */
@DisplayName("GPU health from NVML: one session from open to close, GPUs found by UUID")
class NvmlProbeIT {

  @TempDir Path dir;
  final Machine machine = TestMachines.twoSockets("n1");

  @Test
  @DisplayName(
      "a GPU NVML finds is healthy, one it does not is not; after close it cannot tell and NVML is"
          + " shut down")
  void findsByUuid() {
    List<Device> gpus = machine.gpus();
    FakeNvml.layout(
        dir, "{\"gpus\": [{\"uuid\": \"%s\", \"busId\": \"\"}]}".formatted(gpus.get(0).id()));
    int before = FakeNvml.open();
    NvmlProbe.Opened opened = NvmlProbe.open(FakeNvml.library().toString());
    NvmlProbe probe = opened.probe().orElseThrow(() -> new AssertionError(opened.note()));
    assertTrue(
        opened.note().endsWith("open: GPU health from NVML and procfs/sysfs"), opened.note());
    assertEquals(before + 1, FakeNvml.open(), "initialised once, at open");
    assertEquals(Optional.of(true), probe.healthy(gpus.get(0)));
    assertEquals(Optional.of(false), probe.healthy(gpus.get(1)), "a GPU the driver lost");
    assertEquals(before + 1, FakeNvml.open(), "health reads do not initialise again");
    probe.close();
    assertEquals(before, FakeNvml.open(), "shut down at close");
    assertEquals(Optional.empty(), probe.healthy(gpus.get(0)), "a closed probe cannot tell");
  }

  @Test
  @DisplayName("a driver that does not answer is a note with NVML's error; no probe, no exception")
  void driverNotLoaded() {
    FakeNvml.layout(dir, "{\"initError\": 9, \"gpus\": []}");
    NvmlProbe.Opened opened = NvmlProbe.open(FakeNvml.library().toString());
    assertTrue(opened.probe().isEmpty());
    assertEquals(
        "NVML nvmlInit_v2 failed: Driver Not Loaded (9); the NVIDIA kernel driver is not loaded on"
            + " this node (check nvidia-smi on the host); GPU health from procfs/sysfs only",
        opened.note());
  }
}
