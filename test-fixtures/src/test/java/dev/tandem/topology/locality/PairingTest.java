package dev.tandem.topology.locality;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.fixtures.Sketch;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Two sockets: socket 0 has a switch with GPU-0 and mlx5_0 and a switch with GPU-1 alone; socket 1
 * has a switch with GPU-2 and mlx5_1.
 */
class PairingTest {

  private final LocalityIndex index = LocalityIndex.of(machine());

  private static Machine machine() {
    Sketch s = new Sketch("n");
    String d0 = s.domain("numa:0", 0);
    String d1 = s.domain("numa:1", 1);
    s.switchWith(d0, 0, "GPU-0", "mlx5_0");
    s.switchWith(d0, 0, "GPU-1");
    s.switchWith(d1, 1, "GPU-2", "mlx5_1");
    return s.build();
  }

  @Test
  @DisplayName("each GPU counts by its nearest chosen HCA, not its farthest")
  void nearestPartner() {
    assertEquals(Locality.SYS, index.locality("GPU-0", "mlx5_1"));
    assertEquals(
        Locality.PIX, index.pairing(List.of("GPU-0", "GPU-2"), List.of("mlx5_0", "mlx5_1")));
  }

  @Test
  @DisplayName("the worst device decides, GPU or HCA: a GPU without a near HCA, an HCA far away")
  void worstDevice() {
    assertEquals(Locality.NODE, index.pairing(List.of("GPU-0", "GPU-1"), List.of("mlx5_0")));
    assertEquals(Locality.SYS, index.pairing(List.of("GPU-0"), List.of("mlx5_0", "mlx5_1")));
  }

  @Test
  @DisplayName("one kind alone is not paired: X")
  void oneKind() {
    assertEquals(Locality.X, index.pairing(List.of("GPU-0", "GPU-2"), List.of()));
    assertEquals(Locality.X, index.pairing(new int[0], new int[] {0}));
  }
}
