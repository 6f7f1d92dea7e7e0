package dev.tandem.deviceplugin.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("GPU health from the NVIDIA driver's view (procfs/sysfs); NVML missing is a note")
class GpuHealthTest {

  @TempDir Path root;
  final Machine machine = TestMachines.twoSockets("n1");

  @Test
  @DisplayName("no /proc/driver/nvidia/gpus: the probe cannot tell, discovery's health is kept")
  void cannotTell() {
    assertEquals(Optional.empty(), new DriverProcfs(root).healthy(machine.gpus().get(0)));
  }

  @Test
  @DisplayName(
      "driver directory with information and PCI device present → healthy; GPU missing from the driver → unhealthy")
  void driverView() throws Exception {
    FakeSysfs.nvidiaGpu(root, machine.gpus().get(0));
    DriverProcfs p = new DriverProcfs(root);
    assertEquals(Optional.of(true), p.healthy(machine.gpus().get(0)));
    assertEquals(Optional.of(false), p.healthy(machine.gpus().get(1)));
  }

  @Test
  @DisplayName("a GPU that fell off the PCI bus is unhealthy even while procfs still lists it")
  void offTheBus() throws Exception {
    Device g = machine.gpus().get(0);
    FakeSysfs.nvidiaGpu(root, g);
    Files.delete(root.resolve("sys/bus/pci/devices").resolve(g.address().toString()));
    assertEquals(Optional.of(false), new DriverProcfs(root).healthy(g));
  }

  @Test
  @DisplayName("libnvidia-ml that does not load: no probe, a note naming the library, no exception")
  void nvmlMissing() {
    NvmlProbe.Opened o = NvmlProbe.open("tandem-no-such-nvml");
    assertTrue(o.probe().isEmpty());
    assertTrue(
        o.note().startsWith("NVML library tandem-no-such-nvml cannot be loaded")
            && o.note().endsWith("; GPU health from procfs/sysfs only"),
        o.note());
  }

  @Test
  @DisplayName("by default the driver's libnvidia-ml.so.1 is asked for; absent on a build machine")
  void nvmlDefault() {
    NvmlProbe.Opened o = NvmlProbe.open(Nvml.LIBRARY);
    assertTrue(o.note().contains("libnvidia-ml.so.1"), o.note());
    assertTrue(o.probe().isEmpty() || o.note().startsWith("NVML (libnvidia-ml.so.1) open"));
    o.probe().ifPresent(NvmlProbe::close);
  }
}
