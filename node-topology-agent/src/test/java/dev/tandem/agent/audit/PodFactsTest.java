package dev.tandem.agent.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("a Pod object's counts as the audit reads them: tandem-api's one reading")
class PodFactsTest {

  static Pod pod(String gpus) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("ml")
        .withName("p")
        .withUid("u")
        .endMetadata()
        .withNewSpec()
        .addNewInitContainer()
        .withName("setup")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity("4")))
        .endResources()
        .endInitContainer()
        .addNewInitContainer()
        .withName("proxy")
        .withRestartPolicy("Always")
        .withNewResources()
        .withLimits(Map.of("rdma/hca", new Quantity("1")))
        .endResources()
        .endInitContainer()
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity(gpus), "cpu", new Quantity("500m")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  @DisplayName(
      "the containers PodResources lists (app and sidecar, not an ordinary init), extended"
          + " resources only; a fraction rounds up as the kubelet's device manager does")
  void counts() {
    PodFacts f = PodFacts.of(pod("1500m"));
    assertEquals(
        Map.of("proxy", Map.of("rdma/hca", 1L), "main", Map.of("nvidia.com/gpu", 2L)), f.limits());
    assertEquals(2, f.limit("main", "nvidia.com/gpu"), "1500m was left out before: now 2");
    assertEquals(0, f.limit("setup", "nvidia.com/gpu"));
  }

  @Test
  @DisplayName("a limit that is no quantity is an error naming the container and the resource")
  void invalid() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PodFacts.of(pod("many")));
    assertEquals(
        "container main: limits of nvidia.com/gpu: 'many' is not a Kubernetes quantity (e.g. 2,"
            + " 1k, 500m): no digits",
        e.getMessage());
  }
}
