package dev.tandem.deviceplugin.preferred;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.api.plan.Plan;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "which container a first call is for: oldest plan, limit equal to the size, pods already holding skipped")
class PendingPodLocatorTest {

  final PendingPodLocator matcher =
      new PendingPodLocator("n1", "rdma/hca", "nvidia.com/gpu", null, null, 500);

  static PlannedPod pod(
      String name, String at, Map<String, Integer> hcas, Map<String, Integer> gpus) {
    return new PlannedPod(
        "t",
        name,
        new Plan(
            "n1",
            List.of("GPU-0", "GPU-1"),
            List.of("mlx5_0"),
            "PIX",
            "switch/required",
            Instant.parse(at)),
        hcas,
        gpus);
  }

  @Test
  @DisplayName("a GPU call of 2 → the container with 2 GPUs; the second size is its HCA limit")
  void gpuFirst() {
    PendingPod m =
        matcher.choose(
            Side.GPU,
            2,
            List.of(
                pod("p", "2026-11-22T03:00:00Z", Map.of("main", 1), Map.of("main", 2, "side", 1))),
            Holdings.of(List.of()));
    assertEquals("t/p/main", m.key());
    assertEquals(2, m.gpus());
    assertEquals(1, m.hcas());
  }

  @Test
  @DisplayName("the oldest plan wins; a pod already holding GPUs is skipped")
  void oldestNotHolding() {
    List<PlannedPod> pods =
        List.of(
            pod("new", "2026-11-22T03:05:00Z", Map.of("main", 1), Map.of("main", 1)),
            pod("old", "2026-11-22T03:00:00Z", Map.of("main", 1), Map.of("main", 1)));
    assertEquals("t/old/main", matcher.choose(Side.HCA, 1, pods, Holdings.of(List.of())).key());
    List<HeldDevices> held =
        List.of(new HeldDevices("t", "old", "main", "rdma/hca", List.of("mlx5_3")));
    assertEquals("t/new/main", matcher.choose(Side.HCA, 1, pods, Holdings.of(held)).key());
  }

  @Test
  @DisplayName(
      "a container with GPUs but no HCA limit: other size 0 (no reservation); no size match: unknown")
  void gpuOnlyAndNoMatch() {
    PendingPod m =
        matcher.choose(
            Side.GPU,
            1,
            List.of(pod("p", "2026-11-22T03:00:00Z", Map.of(), Map.of("main", 1))),
            Holdings.of(List.of()));
    assertEquals(0, m.hcas());
    PendingPod none =
        matcher.choose(
            Side.GPU,
            3,
            List.of(pod("p", "2026-11-22T03:00:00Z", Map.of("main", 1), Map.of("main", 1))),
            Holdings.of(List.of()));
    assertNull(none.pod());
    assertEquals(3, none.gpus());
    assertEquals(-1, none.hcas());
  }

  static PlannedPod withInit(
      List<String> order, Set<String> endingInit, Map<String, Integer> hcas) {
    PlannedPod p = pod("p", "2026-11-22T03:00:00Z", hcas, Map.of());
    return new PlannedPod(
        p.namespace(), p.name(), p.plan(), p.hcaLimits(), p.gpuLimits(), order, endingInit);
  }

  static Holdings holding(String... containers) {
    return Holdings.of(
        Arrays.stream(containers)
            .map(c -> new HeldDevices("t", "p", c, "rdma/hca", List.of("mlx5_0-slot-" + c)))
            .toList());
  }

  @Test
  @DisplayName("a pod's second container is found while its first already holds HCAs")
  void secondContainer() {
    PlannedPod p = withInit(List.of("a", "b"), Set.of(), Map.of("a", 1, "b", 1));
    assertEquals("t/p/a", matcher.choose(Side.HCA, 1, List.of(p), holding()).key());
    assertEquals("t/p/b", matcher.choose(Side.HCA, 1, List.of(p), holding("a")).key());
    assertNull(
        matcher.choose(Side.HCA, 1, List.of(p), holding("a", "b")).pod(),
        "every container admitted: the pod is no candidate any more");
  }

  @Test
  @DisplayName(
      "an ordinary init container (never listed by PodResources) is first; once a later container"
          + " holds, or the call must include reused devices, the call is for a container after it")
  void initContainers() {
    PlannedPod p =
        withInit(List.of("setup", "a", "b"), Set.of("setup"), Map.of("setup", 2, "a", 2, "b", 2));
    assertEquals("t/p/setup", matcher.choose(Side.HCA, 2, List.of(p), holding()).key());
    assertEquals(
        "t/p/a", matcher.choose(Side.HCA, 2, true, List.of(p), holding()).key(), "reusing");
    assertEquals("t/p/b", matcher.choose(Side.HCA, 2, List.of(p), holding("a")).key());
  }

  @Test
  @DisplayName("a sidecar is listed by PodResources; the init container after it is still found")
  void sidecarBeforeInit() {
    PlannedPod p =
        withInit(List.of("proxy", "setup", "a"), Set.of("setup"), Map.of("proxy", 1, "setup", 1));
    assertEquals("t/p/setup", matcher.choose(Side.HCA, 1, List.of(p), holding("proxy")).key());
  }
}
