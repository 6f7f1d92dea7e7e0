package dev.tandem.discovery.nvml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryException;
import dev.tandem.topology.model.PciAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one NVML binding against the fake libnvidia-ml (Go, c-shared) loaded by JNA by path: MIG
 * devices, GPUs by UUID, the init/shutdown pairing of overlapping sessions, and its errors.
 */
@DisplayName("NVML: MIG devices, GPUs by UUID, sessions and errors")
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

  @Test
  @DisplayName(
      "overlapping sessions (the plugin's long one, the agent's per reading) each undo only their"
          + " own init; closing twice shuts down once")
  void overlappingSessions() {
    FakeNvml.layout(
        dir, "{\"gpus\": [{\"uuid\": \"%s\", \"busId\": \"00000000:3B:00.0\"}]}".formatted(A100));
    Nvml nvml = new Nvml(FakeNvml.library().toString());
    int before = FakeNvml.open();
    try (NvmlSession other = nvml.open()) {
      NvmlSession held = nvml.open();
      assertEquals(before + 2, FakeNvml.open());
      assertEquals(List.of(), nvml.migGpus(), "a reading in a session of its own");
      assertEquals(before + 2, FakeNvml.open(), "the reading shut down its own init only");
      assertTrue(held.finds(A100), "the held session still answers");
      held.close();
      held.close();
      assertEquals(before + 1, FakeNvml.open(), "one nvmlShutdown for the held session");
      assertTrue(other.finds(A100), "the other session is still initialised");
    }
    assertEquals(before, FakeNvml.open());
  }

  @Test
  @DisplayName("GPUs by UUID: found while the driver lists them; a closed session is an error")
  void findsByUuid() {
    FakeNvml.layout(
        dir, "{\"gpus\": [{\"uuid\": \"%s\", \"busId\": \"00000000:3B:00.0\"}]}".formatted(A100));
    NvmlSession s = new Nvml(FakeNvml.library().toString()).open();
    assertTrue(s.finds(A100));
    assertFalse(s.finds(T4));
    s.close();
    NvmlException e = assertThrows(NvmlException.class, () -> s.finds(A100));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
  }

  @Test
  @DisplayName("an init that fails leaves nothing to shut down; the code and NVML's text are kept")
  void failedInit() {
    FakeNvml.layout(dir, "{\"initError\": 4, \"gpus\": []}");
    int before = FakeNvml.open();
    NvmlException e =
        assertThrows(NvmlException.class, () -> new Nvml(FakeNvml.library().toString()).open());
    assertEquals(4, e.code());
    assertTrue(
        e.getMessage()
            .startsWith("NVML nvmlInit_v2 failed: Insufficient Permissions (4); this process may"),
        e.getMessage());
    assertEquals(before, FakeNvml.open());
  }
}
