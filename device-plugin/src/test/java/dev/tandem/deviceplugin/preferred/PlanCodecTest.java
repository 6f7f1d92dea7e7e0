package dev.tandem.deviceplugin.preferred;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("tandem.dev/plan annotation: the shape agreed with the extender")
class PlanCodecTest {

  static final String AGREED = "{\"node\":\"n1\",\"gpus\":[\"GPU-1\"],\"hcas\":[\"mlx5_0\",\"mlx5_0\"],"
      + "\"locality\":\"PIX\",\"policy\":\"switch/required\",\"plannedAt\":\"2026-11-22T03:00:00Z\"}";

  @Test
  @DisplayName("decodes the agreed JSON, shared-mode repeats kept, and encodes it back identically")
  void roundTrip() {
    Plan p = PlanCodec.decode(AGREED);
    assertEquals(new Plan("n1", List.of("GPU-1"), List.of("mlx5_0", "mlx5_0"), "PIX", "switch/required",
        Instant.parse("2026-11-22T03:00:00Z")), p);
    assertEquals(AGREED, PlanCodec.encode(p));
  }

  @Test
  @DisplayName("unknown keys are ignored; a missing node or a bad time is an error naming the annotation")
  void lenientButChecked() {
    assertEquals("n2", PlanCodec.decode("{\"node\":\"n2\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"v\":2}").node());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> PlanCodec.decode("{\"plannedAt\":\"2026-11-22T03:00:00Z\"}"))
        .getMessage().contains("tandem.dev/plan lacks node"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> PlanCodec.decode("{\"node\":\"n\",\"plannedAt\":\"yesterday\"}"))
        .getMessage().contains("tandem.dev/plan"));
  }
}
