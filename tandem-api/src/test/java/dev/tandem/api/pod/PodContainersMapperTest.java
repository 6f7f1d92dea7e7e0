package dev.tandem.api.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.PodContainers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "a pod's containers as every component reads them: extended resources, requests and limits,"
        + " sidecars")
class PodContainersMapperTest {

  private static final String GPU = "nvidia.com/gpu";
  private static final String HCA = "rdma/hca";

  static Container container(
      String name, String restartPolicy, Map<String, String> requests, Map<String, String> limits) {
    return new ContainerBuilder()
        .withName(name)
        .withRestartPolicy(restartPolicy)
        .withNewResources()
        .withRequests(quantities(requests))
        .withLimits(quantities(limits))
        .endResources()
        .build();
  }

  static Map<String, Quantity> quantities(Map<String, String> text) {
    return text.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue())));
  }

  @Test
  @DisplayName(
      "init containers (sidecars flagged) then app containers; requests and limits of extended"
          + " resources only; the effective rule counts them as kube-scheduler does")
  void reads() {
    Pod pod =
        new PodBuilder()
            .withNewSpec()
            .withInitContainers(
                container("setup", null, Map.of(), Map.of(GPU, "4")),
                container("proxy", "Always", Map.of(), Map.of(HCA, "1")))
            .withContainers(
                container("main", null, Map.of(GPU, "2", "cpu", "500m"), Map.of(GPU, "2")),
                container("side", null, Map.of(), Map.of(HCA, "1k", "memory", "1Gi")))
            .endSpec()
            .build();
    PodContainers c = PodContainersMapper.of(pod);
    assertEquals(
        List.of(
            new ContainerDemand("setup", Map.of(), Map.of(GPU, 4L), false),
            new ContainerDemand("proxy", Map.of(), Map.of(HCA, 1L), true)),
        c.init());
    assertEquals(
        List.of(
            new ContainerDemand("main", Map.of(GPU, 2L), Map.of(GPU, 2L), false),
            new ContainerDemand("side", Map.of(), Map.of(HCA, 1000L), false)),
        c.app(),
        "cpu and memory are not read");
    assertEquals(4, c.effective(GPU), "the init container's 4 GPUs outweigh the app's 2");
    assertEquals(1001, c.effective(HCA), "the sidecar runs beside the app containers");
    assertEquals(
        List.of("setup", "proxy", "main", "side"),
        c.admissionOrder().stream().map(ContainerDemand::name).toList());
  }

  @Test
  @DisplayName("a request is the count; a limit stands in only where no request is set")
  void requestsFirst() {
    Container c = container("main", null, Map.of(GPU, "1"), Map.of(GPU, "3", HCA, "2"));
    ContainerDemand d = PodContainersMapper.of(null, List.of(c)).app().get(0);
    assertEquals(1, d.units(GPU));
    assertEquals(2, d.units(HCA));
  }

  @Test
  @DisplayName("a pod without spec or containers has none")
  void empty() {
    assertEquals(PodContainers.NONE, PodContainersMapper.of(new Pod()));
    assertFalse(PodContainersMapper.of(null, null).names(GPU));
  }

  @Test
  @DisplayName("a quantity that is no count of devices is an error naming container and resource")
  void invalid() {
    Container c = container("main", null, Map.of(), Map.of(GPU, "two"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> PodContainersMapper.of(null, List.of(c)));
    assertEquals(
        "container main: limits of nvidia.com/gpu: 'two' is not a Kubernetes quantity (e.g. 2, 1k,"
            + " 500m): no digits",
        e.getMessage());
    Container cpu = container("main", null, Map.of("cpu", "lots"), Map.of());
    assertTrue(
        PodContainersMapper.of(null, List.of(cpu)).app().get(0).requests().isEmpty(),
        "a native resource is never read, so it cannot fail the reading");
  }

  @Test
  @DisplayName("more devices than any node has keeps its own type, naming container and resource")
  void tooLarge() {
    Container c = container("warm-up", null, Map.of(GPU, "1e12000000"), Map.of());
    DeviceCountTooLarge e =
        assertThrows(
            DeviceCountTooLarge.class, () -> PodContainersMapper.of(List.of(c), List.of()));
    assertEquals(
        "container warm-up: requests of nvidia.com/gpu: '1e12000000' is more devices than any"
            + " node has (at most 2147483647)",
        e.getMessage());
  }
}
