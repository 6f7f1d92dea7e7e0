package dev.tandem.discovery.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName(
    "a VM's GPUs from an NCCL topology file take the UUID the NVIDIA driver gives their bus id")
class NcclGpuUuidsTest {

  private static final String UUID_1 = "GPU-4e8a4b1c-8f0e-4b8e-9a11-0c2d3e4f5a61";
  private static final String UUID_2 = "GPU-5f9b5c2d-9a1f-4c9f-8b22-1d3e4f5a6b72";

  @Test
  @DisplayName(
      "Azure NDv4 with the driver's proc files for two GPUs: those two are named by UUID, in the"
          + " same places of the tree; the others keep their bus id")
  void uuidsByBusId(@TempDir Path root) throws Exception {
    FakeSysfs.nvidiaGpu(root, "0001:00:00.0", UUID_1, "NVIDIA A100-SXM4-80GB");
    FakeSysfs.nvidiaGpu(root, "0002:00:00.0", UUID_2, "NVIDIA A100-SXM4-80GB");
    Path file = Topologies.path("nccl-topo/azure-ndv4-a100.xml");

    Discovery d =
        TopologySources.discoverOnce(new DiscoveryOptions("vm-1", null, root, file, false));

    Machine m = d.machine();
    assertEquals(8, m.gpus().size());
    assertEquals("0001:00:00.0", m.device(UUID_1).orElseThrow().address().toString());
    assertEquals("0002:00:00.0", m.device(UUID_2).orElseThrow().address().toString());
    assertTrue(m.device("0003:00:00.0").isPresent(), "no proc file: the bus id stays the id");
    LocalityIndex index = LocalityIndex.of(m);
    assertEquals(Locality.PIX, index.locality(UUID_1, UUID_2));
    assertEquals(Locality.PIX, index.locality(UUID_1, "0101:00:00.0"));
    assertTrue(
        d.notes().contains("GPU 0001:00:00.0: UUID " + UUID_1 + " from /proc/driver/nvidia"),
        d.notes().toString());
  }

  @Test
  @DisplayName("without the driver's proc files the file's bus ids are the ids, as before")
  void noDriver(@TempDir Path root) {
    Path file = Topologies.path("nccl-topo/azure-ndv4-a100.xml");
    Machine m =
        TopologySources.discoverOnce(new DiscoveryOptions("vm-1", null, root, file, false))
            .machine();
    assertTrue(m.gpus().stream().allMatch(g -> g.id().equals(g.address().toString())));
  }
}
