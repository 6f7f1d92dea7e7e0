package dev.tandem.api.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.request.ContainerShare;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("tandem.dev/plan annotation: the one codec both sides use")
class PlanCodecTest {

  @Test
  @DisplayName(
      "decodes golden/plan.json, shared-mode repeats kept, and encodes it back identically")
  void roundTrip() {
    assertEquals(GoldenPlan.PLAN, PlanCodec.decode(GoldenPlan.json()));
    assertEquals(GoldenPlan.json(), PlanCodec.encode(GoldenPlan.PLAN));
  }

  @Test
  @DisplayName("plannedAt is written in whole seconds")
  void wholeSeconds() {
    Plan p =
        new Plan(
            "n",
            List.of(),
            List.of(),
            "SYS",
            "none/preferred",
            Instant.parse("2026-11-22T03:00:00.734Z"));
    assertTrue(PlanCodec.encode(p).contains("\"plannedAt\":\"2026-11-22T03:00:00Z\""));
  }

  @Test
  @DisplayName("unknown keys are ignored; absent lists are empty")
  void lenient() {
    Plan p = PlanCodec.decode("{\"node\":\"n2\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"v\":2}");
    assertEquals("n2", p.node());
    assertEquals(List.of(), p.gpus());
  }

  @Test
  @DisplayName("per-container shares round-trip; a plan without them is written as before")
  void containerShares() {
    Plan p =
        GoldenPlan.PLAN.withContainers(
            List.of(
                new ContainerShare("setup", true, List.of(), GoldenPlan.PLAN.hcas().subList(0, 1)),
                new ContainerShare(
                    "train", false, GoldenPlan.PLAN.gpus(), GoldenPlan.PLAN.hcas())));
    String json = PlanCodec.encode(p);
    assertTrue(json.contains("{\"name\":\"setup\",\"init\":true,\"gpus\":[],"), json);
    assertEquals(p, PlanCodec.decode(json));
    assertEquals(p.containers().get(1), p.container("train").orElseThrow());
    assertEquals(GoldenPlan.json(), PlanCodec.encode(GoldenPlan.PLAN), "no containers key");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @DisplayName("a malformed annotation is an error naming it and what is wrong")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"plannedAt\":\"2026-11-22T03:00:00Z\"} | tandem.dev/plan lacks node",
        "{\"node\":\"n\"} | tandem.dev/plan lacks plannedAt",
        "{\"node\":\"n\",\"plannedAt\":\"yesterday\"} | not an RFC 3339 time: 'yesterday'",
        "{\"node\":7,\"plannedAt\":\"2026-11-22T03:00:00Z\"} | node that is not a string",
        "{\"node\":\"n\",\"gpus\":\"GPU-1\",\"plannedAt\":\"2026-11-22T03:00:00Z\"} | gpus that is not an array",
        "{\"node\":\"n\",\"hcas\":[1],\"plannedAt\":\"2026-11-22T03:00:00Z\"} | hcas with an element that is not a string",
        "[1] | is not a JSON object",
        "{\"node\":\"n\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"containers\":{}} | containers that is not an array",
        "{\"node\":\"n\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"containers\":[{\"hcas\":[]}]} | a container share without a name",
        "{\"node\":\"n\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"containers\":[{\"name\":\"a\"},{\"name\":\"a\"}]} | two shares for container a",
        "{\"node\":\"n\",\"plannedAt\":\"2026-11-22T03:00:00Z\",\"containers\":[{\"name\":\"a\",\"init\":1}]} | init that is not a boolean",
        "{\"node\":\"n\",\"hcas\":[\"mlx5_0\"],\"plannedAt\":\"2026-11-22T03:00:00Z\",\"containers\":[{\"name\":\"a\",\"hcas\":[\"mlx5_1\"]}]} | gives container a mlx5_1, which is not among the plan's hcas",
        "{\"node\": | is not JSON"
      })
  void malformed(String json, String message) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PlanCodec.decode(json));
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }
}
