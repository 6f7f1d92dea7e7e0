package dev.tandem.benchmarks.extender;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.verbs.PodRequest;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the load harness sends what kube-scheduler sends")
class SchedulerRequestsTest {

  private static final List<String> NODES = List.of("gpu-a-1", "gpu-b-2", "gpu-c-3");

  @Test
  @DisplayName(
      "the body is ExtenderArgs with nodeCacheCapable: Pod, Nodes null, NodeNames in order")
  void bodyIsExtenderArgs() {
    SchedulerRequests requests = new SchedulerRequests(NODES);
    String text = requests.body(SchedulerRequests.head(SchedulerRequests.Shape.TYPICAL)).toString();
    JsonObject args = new JsonObject(text);

    assertEquals(List.of("Pod", "Nodes", "NodeNames"), List.copyOf(args.fieldNames()));
    assertTrue(args.containsKey("Nodes"));
    assertNull(args.getValue("Nodes"));
    assertEquals(new JsonArray(NODES), args.getJsonArray("NodeNames"));
    assertEquals("Pending", args.getJsonObject("Pod").getJsonObject("status").getString("phase"));
  }

  @Test
  @DisplayName("the extender reads the pod's request and policy as the shape says")
  void podAsksWhatItsShapeSays() {
    for (SchedulerRequests.Shape shape :
        List.of(
            SchedulerRequests.Shape.TYPICAL,
            new SchedulerRequests.Shape(8, 4, "numa", "preferred"))) {
      AllocationRequest r =
          PodRequest.of(SchedulerRequests.pod(shape), AlignmentPolicy.DEFAULT).request();
      assertEquals(
          new AllocationRequest(
              shape.gpus(),
              shape.hcas(),
              new AlignmentPolicy(
                  Alignment.parse(shape.alignment()), AlignmentMode.parse(shape.mode()))),
          r,
          shape.toString());
    }
  }

  @Test
  @DisplayName("the mixed load has 512 distinct pod requests")
  void mixedShapesAreDistinct() {
    List<SchedulerRequests.Shape> shapes = SchedulerRequests.Shape.all();
    assertEquals(512, shapes.size());
    assertEquals(
        512,
        new HashSet<>(
                shapes.stream()
                    .map(
                        s ->
                            PodRequest.of(SchedulerRequests.pod(s), AlignmentPolicy.DEFAULT)
                                .request())
                    .toList())
            .size());
  }

  @Test
  @DisplayName("options are bounded and say what is wrong")
  void optionsAreBounded() {
    LoadOptions defaults = LoadOptions.parse();
    assertEquals(List.of(1000, 5000, 15_000), defaults.sizes());
    assertEquals(4, defaults.concurrency());
    assertTrue(defaults.gzip());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--verbs", "bind"));
    assertTrue(e.getMessage().contains("--verbs"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--max-seconds", "0"));
    assertThrows(IllegalArgumentException.class, () -> LoadOptions.parse("--sizes"));
  }
}
