package dev.tandem.extender.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.pod.GangKeys;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.verbs.BindResult;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.RailSets;
import dev.tandem.topology.rail.Rails;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName("against the fabric8 mock API server: a gang whose members are on different rails")
class GangRailAuditMockTest {

  /** pix-node, rails by PCI order: its four HCAs on rails 0-3. */
  private static final Machine RAILED = Rails.byPciOrder(TestMachines.pixNode()).machine();

  KubernetesMockServer server;
  KubernetesClient client;
  private Vertx vertx;
  private KubeCluster kube;
  private ExtenderMetrics metrics;
  private ClusterState state;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    client.resources(NodeTopology.class).resource(NodeTopologyMapper.toResource(RAILED)).create();
  }

  /** As KubeClusterMockTest: informers stopped before the mock server closes. */
  @AfterEach
  void tearDown() throws Exception {
    if (kube != null) {
      kube.cluster().readiness().leader(false);
      kube.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  private void start() {
    kube =
        KubeCluster.of(
            vertx, client, ExtenderConfig.load(List.of("--no-leader-election"), Map.of()));
    metrics = new ExtenderMetrics(kube.cluster());
    kube.start(metrics);
    state = kube.cluster().state();
    await("sync", () -> state.size() == 1 && kube.cluster().readiness().synced());
  }

  private static void await(String what, BooleanSupplier condition) {
    Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(condition::getAsBoolean);
  }

  private static String gpu(int i) {
    return RAILED.gpus().get(i).id();
  }

  private static String hca(int i) {
    return RAILED.hcas().get(i).id();
  }

  private static int rail(int hca) {
    return RailSets.of(RAILED, List.of(hca(hca))).first();
  }

  private static String plan(int gpu, int hca) {
    return new JsonObject()
        .put("node", "pix-node")
        .put("gpus", List.of(gpu(gpu)))
        .put("hcas", List.of(hca(hca)))
        .put("locality", "PIX")
        .put("policy", "switch/required")
        .put("plannedAt", Instant.now().toString())
        .encode();
  }

  /** A member of gang ml/job asking 1 GPU + 1 HCA; bound with the plan when it is not null. */
  private static Pod member(String name, String plan) {
    Map<String, String> annotations = new HashMap<>(Map.of(GangKeys.GANG, "job"));
    if (plan != null) {
      annotations.put(Annotations.PLAN, plan);
    }
    return pod(name, annotations, plan != null);
  }

  private static Pod pod(String name, Map<String, String> annotations, boolean bound) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ml")
        .withUid("uid-" + name)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withNodeName(bound ? "pix-node" : null)
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity("1"), "rdma/hca", new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private Pod create(Pod pod) {
    return client.pods().inNamespace("ml").resource(pod).create();
  }

  private List<Event> events() {
    return client.v1().events().inNamespace("ml").list().getItems().stream()
        .filter(e -> GangRailAudit.REASON.equals(e.getReason()))
        .toList();
  }

  private String gauge() {
    return metrics
        .scrape()
        .lines()
        .filter(l -> l.startsWith("tandem_extender_gangs_split "))
        .findFirst()
        .orElseThrow();
  }

  /** A pod of no gang created and seen: the pod informer has handled every earlier event. */
  private void awaitPodWatch(String name) {
    String uid =
        create(pod(name, Map.of(Annotations.PLAN, plan(3, 3)), true)).getMetadata().getUid();
    await(name + " seen", () -> state.node("pix-node").holdsDevices(uid));
  }

  @Test
  @DisplayName(
      "two members on one rail, a third on another: one GangRailsDiffer Event on the third, naming"
          + " the gang, both sets and the node; none again on its update; the gauge follows")
  void memberOffTheGangsRails() throws Exception {
    start();
    create(member("w-0", plan(0, 0)));
    create(member("w-1", plan(1, 0)));
    create(member("w-2", plan(2, 2)));
    await("the Event", () -> !events().isEmpty());
    Event event = events().get(0);
    assertEquals("w-2", event.getInvolvedObject().getName());
    assertEquals("Warning", event.getType());
    assertEquals(
        "gang ml/job: member ml/w-2 on node pix-node uses rails ["
            + rail(2)
            + "]; the gang is on ["
            + rail(0)
            + "] (2 of 3 members, on nodes pix-node)",
        event.getMessage());
    assertTrue(gauge().endsWith(" 1.0"), gauge());

    client
        .pods()
        .inNamespace("ml")
        .withName("w-2")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToLabels("touched", "yes")
                    .endMetadata()
                    .build());
    awaitPodWatch("probe");
    assertEquals(1, events().size(), "once per member and rail set");
    assertTrue(metrics.scrape().contains("tandem_extender_gang_rails_differ_total 1.0"));

    client.pods().inNamespace("ml").withName("w-2").delete();
    await("the gang whole again", () -> gauge().endsWith(" 0.0"));
  }

  @Test
  @DisplayName(
      "a preferred member bound off its gang's rails (bound_off_gang_rails) gets exactly one"
          + " GangRailsDiffer Event once its bound plan is seen")
  void preferredMemberBoundOffRails() throws Exception {
    create(member("w-0", plan(0, 0)));
    String uid = create(member("w-1", null)).getMetadata().getUid();
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/ml/pods/w-1/binding")
        .andReturn(201, new JsonObject().put("kind", "Status").put("status", "Success").encode())
        .once();
    start();
    await("w-0's rails", () -> !state.gangRails().memberRails("ml/job").isEmpty());
    ClusterParts cluster = kube.cluster();
    BindResult result =
        new BindVerb(
                cluster.readiness(),
                cluster.pods(),
                cluster.assumptions(),
                cluster.writer(),
                PodRequests.DEFAULT,
                ExtenderConfig.defaults().assumedTtl(),
                state.gangRails())
            .bind(new PodRef("ml", "w-1", uid), "pix-node")
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    assertEquals("bound_off_gang_rails", result.result(), result.error());
    String plan = bindingPlan();
    // what the API server does with a Binding: the node and the Binding's annotations on the pod
    client
        .pods()
        .inNamespace("ml")
        .withName("w-1")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToAnnotations(Annotations.PLAN, plan)
                    .endMetadata()
                    .editSpec()
                    .withNodeName("pix-node")
                    .endSpec()
                    .build());
    await("the Event", () -> !events().isEmpty());
    awaitPodWatch("probe");
    List<Event> events = events();
    assertEquals(1, events.size());
    assertEquals("w-1", events.get(0).getInvolvedObject().getName());
    assertTrue(
        events
            .get(0)
            .getMessage()
            .endsWith("the gang is on [" + rail(0) + "] (1 of 2 members, on nodes pix-node)"),
        events.get(0).getMessage());
  }

  private String bindingPlan() throws InterruptedException {
    String plan = null;
    int n = server.getRequestCount();
    for (int i = 0; i < n; i++) {
      RecordedRequest r = server.takeRequest();
      if (r.getPath().endsWith("/binding")) {
        plan =
            new JsonObject(r.getUtf8Body())
                .getJsonObject("metadata")
                .getJsonObject("annotations")
                .getString(Annotations.PLAN);
      }
    }
    assertTrue(plan != null, "no Binding with a plan");
    return plan;
  }
}
