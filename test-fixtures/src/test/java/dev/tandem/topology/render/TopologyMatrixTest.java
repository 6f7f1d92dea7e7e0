package dev.tandem.topology.render;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TopologyMatrixTest {

  @Test
  @DisplayName(
      "the matrix reads like nvidia-smi topo -m: GPUn and ibverbs names, X on the diagonal, NUMA affinity, legend")
  void rendersLikeNvidiaSmi() {
    String text = TopologyMatrix.render(RealMachines.relion());
    List<String> lines = text.lines().toList();
    assertEquals(
        List.of("GPU0", "GPU1", "mlx5_0", "NUMA", "Affinity"),
        List.of(lines.get(0).trim().split("\\s+")));
    assertEquals(
        List.of("GPU0", "X", "PIX", "PIX", "0"), List.of(lines.get(1).trim().split("\\s+")));
    assertEquals(
        List.of("mlx5_0", "PIX", "PIX", "X", "0"), List.of(lines.get(3).trim().split("\\s+")));
    assertTrue(text.contains("PIX  = Connection traversing at most a single PCIe bridge"), text);
    assertTrue(text.contains("GPU0: GPU-0"), text);
  }

  @Test
  @DisplayName("pairs lists each GPU's nearest HCAs")
  void pairs() {
    assertEquals(
        "GPU0 -> mlx5_0,mlx5_1 (PIX)\nGPU1 -> mlx5_2 (PIX)\nGPU2 -> mlx5_3 (NODE)\nGPU3 -> mlx5_3 (PIX)\n",
        TopologyMatrix.pairs(RealMachines.xe8640()));
  }
}
