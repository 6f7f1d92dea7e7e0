package dev.tandem.topology.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PodDemandTest {

  private static final String GPU = "nvidia.com/gpu";

  private static ContainerDemand app(long gpus) {
    return new ContainerDemand("app", Map.of(), Map.of(GPU, gpus), false);
  }

  private static ContainerDemand init(long gpus, boolean sidecar) {
    return new ContainerDemand("init", Map.of(GPU, gpus), Map.of(), sidecar);
  }

  @Test
  @DisplayName("app containers add up; a limit stands in for a missing request")
  void appContainersAddUp() {
    assertEquals(3, PodDemand.effective(GPU, List.of(), List.of(app(1), app(2))));
  }

  @Test
  @DisplayName("an ordinary init container counts only if it needs more than the app containers")
  void initPeak() {
    assertEquals(4, PodDemand.effective(GPU, List.of(init(4, false)), List.of(app(1), app(2))));
    assertEquals(3, PodDemand.effective(GPU, List.of(init(2, false)), List.of(app(1), app(2))));
  }

  @Test
  @DisplayName("sidecars run next to the app containers and next to later init containers")
  void sidecars() {
    // sidecar 1, then init 2 runs beside it (peak 3); app 1 + sidecar 1 = 2; effective 3
    assertEquals(
        3, PodDemand.effective(GPU, List.of(init(1, true), init(2, false)), List.of(app(1))));
    // app 4 + sidecar 1 = 5 beats the init peak
    assertEquals(
        5, PodDemand.effective(GPU, List.of(init(1, true), init(2, false)), List.of(app(4))));
    // an init container before the sidecar does not run beside it
    assertEquals(
        2, PodDemand.effective(GPU, List.of(init(2, false), init(1, true)), List.of(app(0))));
  }

  @Test
  @DisplayName(
      "a resource named with quantity 0 still makes the pod interesting, as kube-scheduler's IsInterested")
  void namesCountsZero() {
    assertTrue(PodDemand.names(GPU, List.of(), List.of(app(0))));
    assertFalse(PodDemand.names("rdma/hca", List.of(), List.of(app(0))));
    assertTrue(PodDemand.names(GPU, List.of(init(0, false)), List.of()));
  }
}
