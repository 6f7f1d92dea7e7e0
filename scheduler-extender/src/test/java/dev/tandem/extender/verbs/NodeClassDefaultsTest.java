package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.plan.Plan;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.NodeClassDefault;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "Grace trays: a 1+1 switch pod is placed on the GB300 with Data Direct, refused on the GB200"
        + " with ConnectX-7 unless a node-class default of numa covers that node")
class NodeClassDefaultsTest {

  private static final String CX8 = GraceTray.GB300_CX8.nodeName();
  private static final String CX7 = GraceTray.GB200_CX7.nodeName();
  private static final Map<String, String> GB200_LABELS =
      Map.of("nvidia.com/gpu.product", "NVIDIA-GB200", "kubernetes.io/os", "linux");

  /** The two trays as the demo publishes them (discovered: the CX-8 NICs at their Data Direct). */
  private static final ClusterParts DEMO = DemoCluster.fromBundledFixtures();

  private final List<String> bound = new ArrayList<>();
  private final NodeClasses classes =
      new NodeClasses(
          List.of(
              new NodeClassDefault(
                  Map.of("nvidia.com/gpu.product", "NVIDIA-GB200"), Alignment.NUMA, null)),
          AlignmentPolicy.DEFAULT);
  private final ClusterParts cluster;
  private JsonObject pod = pod(Map.of());

  NodeClassDefaultsTest() {
    PodWriter writer =
        (ref, node, annotations) -> {
          bound.add(annotations.get(Annotations.PLAN));
          return Future.succeededFuture();
        };
    cluster = ClusterParts.empty(Clock.systemUTC(), ref -> Future.succeededFuture(pod), writer);
    for (String node : List.of(CX8, CX7)) {
      cluster.state().putTopology(DEMO.state().node(node).machine(), 1, List.of());
    }
    cluster.readiness().leader(true);
  }

  private static JsonObject pod(Map<String, String> annotations) {
    return TestPods.pod("1", "1", annotations);
  }

  private PodRequests requests() {
    return new PodRequests(AlignmentPolicy.DEFAULT, ResourceNames.DEFAULT, classes);
  }

  private FilterVerdict filter() {
    return new FilterVerb(new NodeEvaluator(100))
        .verdict(
            requests().of(pod),
            CandidateNodes.of(cluster.state().directory(), List.of(CX8, CX7)),
            AllocationBudget.UNLIMITED);
  }

  private Plan bind(String node) throws Exception {
    BindResult r =
        new BindVerb(
                cluster.readiness(),
                cluster.pods(),
                cluster.assumptions(),
                cluster.writer(),
                requests(),
                Duration.ofMinutes(5))
            .bind(new PodRef("ml", "p", "uid-on-" + node), node)
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    assertEquals("bound", r.result(), r.error());
    return PlanCodec.decode(bound.getLast());
  }

  @Test
  @DisplayName(
      "no class default: placed on the GB300 under one switch; the GB200 refuses it for good,"
          + " naming its class and numa")
  void withoutClassDefault() throws Exception {
    FilterVerdict v = filter();
    assertArrayEquals(new boolean[] {true, false}, v.passed());
    assertTrue(v.unresolvable()[1]);
    assertEquals(
        "1 GPU + 1 HCA need under one PCIe switch (PXB or better, tandem.dev/alignment=switch);"
            + " best on this node now is NODE. NUMA-only node (no HCA shares a PCIe host bridge"
            + " with a GPU, as on a Grace tray without ConnectX-8 Data Direct):"
            + " tandem.dev/alignment=numa fits (on the pod, or as a node-class default)",
        v.reasons()[1]);
    assertEquals("PIX", bind(CX8).locality());
  }

  @Test
  @DisplayName("a class default of numa on the GB200's labels: placed there too, and bound at NODE")
  void classDefaultPlacesIt() throws Exception {
    classes.labels(CX7, GB200_LABELS);
    assertArrayEquals(new boolean[] {true, true}, filter().passed());
    Plan plan = bind(CX7);
    assertEquals("NODE", plan.locality());
    assertEquals("numa/required", plan.policy());
    assertEquals("switch/required", bind(CX8).policy(), "the GB300 keeps the cluster default");
  }

  @Test
  @DisplayName("the pod's own tandem.dev/alignment wins over the class default")
  void annotationWins() {
    classes.labels(CX7, GB200_LABELS);
    pod = pod(Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, "switch"));
    FilterVerdict v = filter();
    assertArrayEquals(new boolean[] {true, false}, v.passed());
    assertTrue(v.reasons()[1].contains("tandem.dev/alignment=numa fits"), v.reasons()[1]);
  }

  @Test
  @DisplayName("a node whose labels no longer match, or whose Node went, has the cluster default")
  void labelsChange() {
    classes.labels(CX7, GB200_LABELS);
    classes.labels(CX7, Map.of("nvidia.com/gpu.product", "NVIDIA-GB300"));
    assertArrayEquals(new boolean[] {true, false}, filter().passed());
    classes.labels(CX7, GB200_LABELS);
    classes.gone(CX7);
    assertArrayEquals(new boolean[] {true, false}, filter().passed());
  }
}
