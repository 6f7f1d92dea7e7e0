package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.model.PciAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MIG devices through NVML, against the fake libnvidia-ml (Go, c-shared) loaded by JNA by path. */
@DisplayName("NVML: MIG devices of this machine's GPUs")
class NvmlIT {

  private static final String A100 = "GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f";
  private static final String T4 = "GPU-0f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718";
  private static final String V100 = "GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4";

  @TempDir Path dir;

  @Test
  @DisplayName("GPUs with MIG enabled, their UUID, bus id and MIG devices; empty slots skipped")
  void migGpus() {
    FakeNvml.layout(
        dir,
        """
        {"gpus": [
          {"uuid": "%s", "busId": "00000000:3B:00.0", "migMode": "enabled",
           "migDevices": ["MIG-6a1e35b3-1c2d-5e0f-9a8b-7c6d5e4f3a21", "",
                          "MIG-0d4c2b1a-9f8e-5d7c-8b6a-5f4e3d2c1b0a"]},
          {"uuid": "%s", "busId": "00000000:5E:00.0", "migMode": "unsupported"},
          {"uuid": "%s", "busId": "00000000:86:00.0", "migMode": "disabled",
           "migDevices": ["MIG-ffffffff-ffff-5fff-bfff-ffffffffffff"]}
        ]}
        """
            .formatted(A100, T4, V100));
    List<MigGpu> gpus = new Nvml(FakeNvml.library().toString()).migGpus();
    assertEquals(
        List.of(
            new MigGpu(
                A100,
                PciAddress.parse("0000:3b:00.0"),
                List.of(
                    "MIG-6a1e35b3-1c2d-5e0f-9a8b-7c6d5e4f3a21",
                    "MIG-0d4c2b1a-9f8e-5d7c-8b6a-5f4e3d2c1b0a"))),
        gpus);
    assertEquals(0, FakeNvml.open(), "NVML is shut down after each reading");
  }

  @Test
  @DisplayName("a driver that is not loaded is an error naming NVML's error and what to check")
  void driverNotLoaded() {
    FakeNvml.layout(dir, "{\"initError\": 9, \"gpus\": []}");
    var e =
        assertThrows(
            DiscoveryException.class, () -> new Nvml(FakeNvml.library().toString()).migGpus());
    assertEquals(
        "NVML nvmlInit_v2 failed: Driver Not Loaded (9); the NVIDIA kernel driver is not loaded on"
            + " this node (check nvidia-smi on the host)",
        e.getMessage());
  }

  @Test
  @DisplayName("a library that is not installed is an error naming it and what to mount")
  void libraryAbsent() {
    String missing = dir.resolve("libnvidia-ml.so.1").toString();
    var e = assertThrows(DiscoveryException.class, () -> new Nvml(missing).migGpus());
    assertTrue(
        e.getMessage().startsWith("NVML library " + missing + " cannot be loaded ("),
        e.getMessage());
    assertTrue(e.getMessage().contains("libnvidia-ml.so.1 visible"), e.getMessage());
  }
}
