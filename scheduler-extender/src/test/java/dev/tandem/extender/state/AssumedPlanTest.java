package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.plan.GoldenPlan;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "the extender's side of the plan annotation (golden/plan.json, read by the device plugin too)")
class AssumedPlanTest {

  private static final PodRef POD = new PodRef("ml", "p", "u-1");
  private static final AssumedPlan ASSUMED =
      new AssumedPlan(
          POD,
          "n1",
          List.of("GPU-1"),
          List.of("mlx5_0", "mlx5_0"),
          Locality.PIX,
          AlignmentPolicy.DEFAULT,
          Instant.parse("2026-11-22T03:00:00.640Z"),
          Instant.parse("2026-11-22T03:05:00Z"),
          List.of());

  @Test
  @DisplayName("bind writes exactly the golden bytes")
  void writesGolden() {
    assertEquals(GoldenPlan.json(), PlanCodec.encode(ASSUMED.plan()));
  }

  @Test
  @DisplayName(
      "a restored plan holds the same devices, locality and policy, expiring ttl after planning")
  void restoresGolden() {
    AssumedPlan back =
        AssumedPlan.restored(POD, PlanCodec.decode(GoldenPlan.json()), Duration.ofMinutes(2));
    assertEquals(List.of("GPU-1"), back.gpus());
    assertEquals(List.of("mlx5_0", "mlx5_0"), back.hcas());
    assertEquals(Locality.PIX, back.locality());
    assertEquals(AlignmentPolicy.DEFAULT, back.policy());
    assertEquals(Instant.parse("2026-11-22T03:02:00Z"), back.expiresAt());
  }
}
