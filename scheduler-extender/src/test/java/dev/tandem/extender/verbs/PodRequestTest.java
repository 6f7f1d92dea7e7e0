package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "the pod kube-scheduler sends, read by tandem-api's one reading: quantity forms, sidecars,"
        + " refusals that name the container")
class PodRequestTest {

  static PodRequest read(JsonObject pod) {
    return PodRequests.DEFAULT.of(pod);
  }

  @Test
  @DisplayName("numbers and strings in any quantity form; a fraction rounds up as kube-scheduler's")
  void quantityForms() {
    PodRequest r = read(TestPods.pod("1500m", "2", Map.of()));
    assertEquals(2, r.request().gpus());
    assertEquals(2, r.request().hcas());
    assertEquals(4, read(TestPods.pod(null, "0.004k", Map.of())).request().hcas());
    JsonObject numbers = TestPods.pod(List.of(TestPods.container("main", 3, 1)), List.of());
    assertEquals(3, read(numbers).request().gpus());
  }

  @Test
  @DisplayName("a sidecar runs beside the app containers; an ordinary init container does not")
  void sidecars() {
    JsonObject sidecar = TestPods.container("proxy", 1, 1).put("restartPolicy", "Always");
    JsonObject setup = TestPods.container("setup", 2, 0);
    PodRequest r =
        read(TestPods.pod(List.of(TestPods.container("main", 1, 1)), List.of(setup, sidecar)));
    assertEquals(2, r.request().gpus(), "max(2 beside nothing, 1 + 1)");
    assertEquals(2, r.request().hcas(), "the sidecar's HCA and the app's");
    assertTrue(r.init().get(1).sidecar());
  }

  @Test
  @DisplayName("a quantity or a container that is not one is refused naming where it stood")
  void refusals() {
    IllegalArgumentException bad =
        assertThrows(
            IllegalArgumentException.class, () -> read(TestPods.pod("two", "1", Map.of())));
    assertEquals(
        "container main: limits of nvidia.com/gpu: 'two' is not a Kubernetes quantity (e.g. 2, 1k,"
            + " 500m): no digits",
        bad.getMessage());
    JsonObject notContainer =
        TestPods.pod(List.of(new JsonObject().put("name", new JsonArray())), List.of());
    IllegalArgumentException shape =
        assertThrows(IllegalArgumentException.class, () -> read(notContainer));
    assertTrue(
        shape.getMessage().equals("spec.containers[0].name is not a string"), shape.getMessage());
  }
}
