package dev.tandem.topology.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.locality.LocalityIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ContainerSplitTest {

  private static final String GPU = "nvidia.com/gpu";
  private static final String HCA = "rdma/hca";
  private static final ContainerSplit SPLIT =
      new ContainerSplit(GPU, HCA, LocalityIndex.of(RealMachines.xe8640()));

  private static ContainerDemand app(String name, long gpus, long hcas) {
    return new ContainerDemand(name, null, Map.of(GPU, gpus, HCA, hcas), false);
  }

  private static ContainerDemand init(String name, long gpus, long hcas, boolean sidecar) {
    return new ContainerDemand(name, null, Map.of(GPU, gpus, HCA, hcas), sidecar);
  }

  @Test
  @DisplayName("two app containers: each gets its GPU and the HCA under that GPU's switch")
  void twoAppContainersFollowTheirGpus() {
    List<ContainerShare> s =
        SPLIT.split(
            List.of(),
            List.of(app("a", 1, 1), app("b", 1, 1)),
            List.of("GPU-1", "GPU-3"),
            List.of("mlx5_3", "mlx5_2"));
    assertEquals(
        List.of(
            new ContainerShare("a", false, List.of("GPU-1"), List.of("mlx5_2")),
            new ContainerShare("b", false, List.of("GPU-3"), List.of("mlx5_3"))),
        s);
  }

  @Test
  @DisplayName("shared mode: slots of one HCA (the name repeated) go one per container")
  void sharedSlots() {
    List<ContainerShare> s =
        SPLIT.split(
            List.of(),
            List.of(app("a", 0, 1), app("b", 0, 1)),
            List.of(),
            List.of("mlx5_2", "mlx5_2"));
    assertEquals(List.of("mlx5_2"), s.get(0).hcas());
    assertEquals(List.of("mlx5_2"), s.get(1).hcas());
  }

  @Test
  @DisplayName("an ordinary init container's HCAs are reused by the app containers, as the kubelet")
  void initDevicesAreReused() {
    List<ContainerShare> s =
        SPLIT.split(
            List.of(init("setup", 0, 1, false)),
            List.of(app("a", 0, 1), app("b", 0, 1)),
            List.of(),
            List.of("mlx5_2", "mlx5_3"));
    assertEquals(new ContainerShare("setup", true, List.of(), List.of("mlx5_2")), s.get(0));
    assertEquals(List.of("mlx5_2"), s.get(1).hcas(), "a reuses the init container's HCA");
    assertEquals(List.of("mlx5_3"), s.get(2).hcas());
  }

  @Test
  @DisplayName("a sidecar's HCAs are never reused: they stay its own while the app runs")
  void sidecarKeepsItsDevices() {
    List<ContainerShare> s =
        SPLIT.split(
            List.of(init("proxy", 0, 1, true)),
            List.of(app("a", 0, 1)),
            List.of(),
            List.of("mlx5_2", "mlx5_3"));
    assertEquals(List.of("mlx5_2"), s.get(0).hcas());
    assertEquals(List.of("mlx5_3"), s.get(1).hcas());
  }

  @Test
  @DisplayName("an init container bigger than the app: the app takes part of its HCAs, none new")
  void initBiggerThanApp() {
    List<ContainerShare> s =
        SPLIT.split(
            List.of(init("setup", 0, 2, false)),
            List.of(app("a", 0, 1)),
            List.of(),
            List.of("mlx5_2", "mlx5_3"));
    assertEquals(List.of("mlx5_2", "mlx5_3"), s.get(0).hcas());
    assertEquals(List.of("mlx5_2"), s.get(1).hcas());
  }

  @Test
  @DisplayName("the new devices the split uses are the pod's effective request, for any mix")
  void usesTheEffectiveRequest() {
    List<List<ContainerDemand>> inits =
        List.of(
            List.of(),
            List.of(init("i", 0, 3, false)),
            List.of(init("s", 0, 1, true), init("i", 0, 2, false)),
            List.of(init("i", 0, 1, false), init("s", 0, 2, true), init("j", 0, 4, false)));
    List<List<ContainerDemand>> apps =
        List.of(List.of(app("a", 0, 1)), List.of(app("a", 0, 2), app("b", 0, 3)));
    for (List<ContainerDemand> i : inits) {
      for (List<ContainerDemand> a : apps) {
        long need = PodDemand.effective(HCA, i, a);
        List<String> ids = new ArrayList<>();
        for (int n = 0; n < need + 2; n++) {
          ids.add("h" + n);
        }
        long used =
            new ContainerSplit(GPU, HCA, null)
                .split(i, a, List.of(), ids).stream()
                    .flatMap(c -> c.hcas().stream())
                    .distinct()
                    .count();
        assertEquals(need, used, "init " + i + ", app " + a);
      }
    }
  }
}
