package dev.tandem.extender.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.api.pod.GangKeys;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.Assumptions;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.Readiness;
import dev.tandem.extender.verbs.BindResult;
import dev.tandem.extender.verbs.BindVerb;
import dev.tandem.extender.verbs.PodRequests;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import io.fabric8.kubernetes.api.model.NodeBuilder;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName(
    "against the fabric8 mock API server: informers, plan annotation, Binding, leader election")
class KubeClusterMockTest {

  KubernetesMockServer server;
  KubernetesClient client;
  private Vertx vertx;
  private KubeCluster kube;
  private Readiness readiness;
  private Assumptions assumptions;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  /**
   * Stops the informers and closes the client before the extension closes the mock server: a watch
   * still open (or an informer still retrying its list) can keep the server from closing. For the
   * same reason the test builds and closes its Vert.x instance itself: vertx-junit5's would close
   * only after the mock server.
   */
  @AfterEach
  void tearDown() throws Exception {
    if (kube != null) {
      kube.cluster().readiness().leader(false);
      kube.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  private ClusterState start(boolean election) {
    ExtenderConfig config =
        ExtenderConfig.load(
            election
                ? List.of("--lease-namespace", "tandem-system", "--identity", "replica-a")
                : List.of("--no-leader-election"),
            Map.of());
    kube = KubeCluster.of(vertx, client, config);
    kube.start(new ExtenderMetrics(kube.cluster()));
    readiness = kube.cluster().readiness();
    assumptions = kube.cluster().assumptions();
    return kube.cluster().state();
  }

  private BindVerb bindVerb() {
    ClusterParts cluster = kube.cluster();
    return new BindVerb(
        cluster.readiness(),
        cluster.pods(),
        cluster.assumptions(),
        cluster.writer(),
        PodRequests.DEFAULT,
        ExtenderConfig.defaults().assumedTtl());
  }

  /**
   * Waits for an informer's event; generous, since the mock's watch is slow on a loaded machine.
   */
  private static void await(String what, BooleanSupplier condition) {
    Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(condition::getAsBoolean);
  }

  private static String plan(String gpu, String hca) {
    return new JsonObject()
        .put("node", "pix-node")
        .put("gpus", List.of(gpu))
        .put("hcas", List.of(hca))
        .put("locality", "PIX")
        .put("policy", "switch/required")
        .put("plannedAt", Instant.now().toString())
        .encode();
  }

  /**
   * Waits until the pod informer's watch is open. The CRUD mock does not replay events from a
   * resourceVersion, as the API server does: a pod deleted between the informer's list and its
   * watch would never be seen. A pod added after the list and seen proves the watch is open: its
   * plan (on the node's last GPU and HCA, which the tests leave alone) is restored.
   */
  private void awaitPodWatch() {
    int before = assumptions.count();
    Machine node = TestMachines.pixNode();
    String gpu = node.gpus().get(node.gpus().size() - 1).id();
    String hca = node.hcas().get(node.hcas().size() - 1).id();
    client
        .pods()
        .inNamespace("ml")
        .resource(
            pod("watch-probe", "uid-probe", "pix-node", Map.of(Annotations.PLAN, plan(gpu, hca))))
        .create();
    await("the pod watch", () -> assumptions.count() == before + 1);
  }

  private static Pod pod(String name, String uid, String node, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ml")
        .withUid(uid)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .withLimits(Map.of("nvidia.com/gpu", new Quantity("1"), "rdma/hca", new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  @DisplayName(
      "NodeTopology add, status allocations and delete reach the state; /readyz follows sync")
  void topologyInformer() throws Exception {
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    ClusterState state = start(false);
    await("the NodeTopology", () -> state.size() == 1 && readiness.synced());
    assertTrue(readiness.ready());
    String gpu = state.node("pix-node").machine().gpus().get(0).id();
    NodeTopology withStatus =
        NodeTopologyMapper.toResource(
            TestMachines.pixNode(),
            new NodeTopologyStatus(
                Instant.now().toString(),
                List.of(
                    new AllocationEntry(
                        "uid-9", "ml", "p9", "main", "nvidia.com/gpu", List.of(gpu), true)),
                List.of(),
                List.of()));
    client.resources(NodeTopology.class).resource(withStatus).update();
    await("the allocation", () -> state.node("pix-node").allocations().size() == 1);
    assertEquals(0, state.node("pix-node").free().free(gpu));
    client.resources(NodeTopology.class).withName("pix-node").delete();
    await("the deletion", () -> state.size() == 0);
  }

  @Test
  @DisplayName(
      "devices the agent reports held through a DRA claim count as held, once: a claim entry and a"
          + " device plugin's entry on one node leave neither device free")
  void claimAllocationsHeld() throws Exception {
    Machine node = TestMachines.pixNode();
    String claimed = node.gpus().get(0).id();
    String plugged = node.gpus().get(1).id();
    client
        .resources(NodeTopology.class)
        .resource(
            NodeTopologyMapper.toResource(
                node,
                new NodeTopologyStatus(
                    Instant.now().toString(),
                    List.of(
                        new AllocationEntry(
                            "uid-c",
                            "ml",
                            "c",
                            "main",
                            ResourceNames.GPU,
                            List.of(claimed),
                            true,
                            "ml/c-devices",
                            "tandem.dev"),
                        new AllocationEntry(
                            "uid-d", "ml", "d", "main", ResourceNames.GPU, List.of(plugged), true)),
                    List.of(),
                    List.of())))
        .create();
    ClusterState state = start(false);
    await(
        "the allocations",
        () ->
            readiness.synced()
                && state.node("pix-node") != null
                && state.node("pix-node").allocations().size() == 2);
    assertEquals(0, state.node("pix-node").free().free(claimed));
    assertEquals(0, state.node("pix-node").free().free(plugged));
    assertEquals(1, state.node("pix-node").free().free(node.gpus().get(2).id()));
  }

  @Test
  @DisplayName(
      "bind of a pod whose devices come only from a DRA claim: a plain Binding without"
          + " tandem.dev/plan, nothing assumed")
  void bindClaimsOnly() throws Exception {
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    Pod claimsOnly =
        new PodBuilder()
            .withNewMetadata()
            .withName("dra-1")
            .withNamespace("ml")
            .withUid("uid-dra-1")
            .endMetadata()
            .withNewSpec()
            .addNewResourceClaim()
            .withName("devices")
            .withResourceClaimTemplateName("trainer-4x4")
            .endResourceClaim()
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .addNewClaim()
            .withName("devices")
            .endClaim()
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    String uid =
        client.pods().inNamespace("ml").resource(claimsOnly).create().getMetadata().getUid();
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/ml/pods/dra-1/binding")
        .andReturn(201, new JsonObject().put("kind", "Status").put("status", "Success").encode())
        .once();
    ClusterState state = start(false);
    await("sync", () -> state.size() == 1 && readiness.synced());
    BindResult result =
        bindVerb()
            .bind(new PodRef("ml", "dra-1", uid), "pix-node")
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    assertEquals("bound_without_plan", result.result());
    JsonObject body = new JsonObject(lastRequest("/binding").getUtf8Body());
    JsonObject annotations = body.getJsonObject("metadata").getJsonObject("annotations");
    assertTrue(annotations == null || !annotations.containsKey(Annotations.PLAN), body.encode());
    assertEquals(0, assumptions.count());
  }

  @Test
  @DisplayName("bind: one POST pods/{name}/binding, carrying tandem.dev/plan as its annotation")
  void bind() throws Exception {
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    String uid =
        client
            .pods()
            .inNamespace("ml")
            .resource(pod("p1", "uid-1", null, Map.of()))
            .create()
            .getMetadata()
            .getUid();
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/ml/pods/p1/binding")
        .andReturn(201, new JsonObject().put("kind", "Status").put("status", "Success").encode())
        .once();
    ClusterState state = start(false);
    await("sync", () -> state.size() == 1 && readiness.synced());
    BindVerb binder = bindVerb();
    BindResult result =
        binder
            .bind(new PodRef("ml", "p1", uid), "pix-node")
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    assertEquals("", result.error());
    assertEquals("bound", result.result());
    RecordedRequest binding = lastRequest("/binding");
    JsonObject body = new JsonObject(binding.getUtf8Body());
    assertEquals("Binding", body.getString("kind"));
    assertEquals(uid, body.getJsonObject("metadata").getString("uid"));
    // the API server merges a Binding's annotations onto the pod as it binds it (the mock does not:
    // the end-to-end harness checks the pod itself against the real kube-apiserver)
    String plan =
        body.getJsonObject("metadata").getJsonObject("annotations").getString(Annotations.PLAN);
    assertNotNull(plan);
    JsonObject json = new JsonObject(plan);
    assertEquals("pix-node", json.getString("node"));
    assertEquals(1, json.getJsonArray("gpus").size());
    assertEquals("switch/required", json.getString("policy"));
    assertEquals(
        new JsonObject().put("apiVersion", "v1").put("kind", "Node").put("name", "pix-node"),
        body.getJsonObject("target"));
    assertEquals(1, assumptions.count());
  }

  @Test
  @DisplayName("bind: a refused Binding releases the assumption and answers Error")
  void refusedBinding() throws Exception {
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    String uid =
        client
            .pods()
            .inNamespace("ml")
            .resource(pod("p2", "uid-2", null, Map.of()))
            .create()
            .getMetadata()
            .getUid();
    server
        .expect()
        .post()
        .withPath("/api/v1/namespaces/ml/pods/p2/binding")
        .andReturn(
            409,
            new JsonObject()
                .put("kind", "Status")
                .put("message", "pod p2 is already assigned")
                .encode())
        .once();
    ClusterState state = start(false);
    await("sync", () -> state.size() == 1 && readiness.synced());
    BindResult result =
        bindVerb()
            .bind(new PodRef("ml", "p2", uid), "pix-node")
            .toCompletionStage()
            .toCompletableFuture()
            .get();
    assertTrue(
        result.error().contains("409") && result.error().contains("already assigned"),
        result.error());
    assertEquals(0, assumptions.count());
  }

  @Test
  @DisplayName(
      "a pod carrying a plan (bound by an earlier leader) holds its devices until it goes away")
  void restoresPlansFromPods() throws Exception {
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    client
        .pods()
        .inNamespace("ml")
        .resource(pod("p3", "uid-3", "pix-node", Map.of(Annotations.PLAN, plan(gpu, "mlx5_0"))))
        .create();
    ClusterState state = start(false);
    await("the restored plan", () -> assumptions.count() == 1);
    assertEquals(0, state.node("pix-node").free().free(gpu));
    awaitPodWatch();
    client.pods().inNamespace("ml").withName("p3").delete();
    await("the release", () -> assumptions.count() == 1);
    assertEquals(1, state.node("pix-node").free().free(gpu));
  }

  @Test
  @DisplayName(
      "a gang's rails are rebuilt from its bound members' plans at start, and released when they"
          + " go")
  void gangRailsFromBoundPlans() throws Exception {
    Machine railed = Rails.byPciOrder(TestMachines.pixNode()).machine();
    client.resources(NodeTopology.class).resource(NodeTopologyMapper.toResource(railed)).create();
    String gpu = railed.gpus().get(0).id();
    client
        .pods()
        .inNamespace("ml")
        .resource(
            pod(
                "w-0",
                "uid-w0",
                "pix-node",
                Map.of(Annotations.PLAN, plan(gpu, "mlx5_1"), GangKeys.GANG, "job")))
        .create();
    ClusterState state = start(false);
    await("the gang's rails", () -> !state.gangRails().memberRails("ml/job").isEmpty());
    assertEquals(Set.of(1), state.gangRails().memberRails("ml/job"));
    awaitPodWatch();
    client.pods().inNamespace("ml").withName("w-0").delete();
    await("the release", () -> state.gangRails().gangs().isEmpty());
  }

  @Test
  @DisplayName(
      "a deleted pod's devices are free as soon as the delete is watched, before the agent reports")
  void deletedPodFreesDevices() throws Exception {
    String uid =
        client
            .pods()
            .inNamespace("ml")
            .resource(pod("p4", "uid-4", "pix-node", Map.of()))
            .create()
            .getMetadata()
            .getUid();
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    client
        .resources(NodeTopology.class)
        .resource(
            NodeTopologyMapper.toResource(
                TestMachines.pixNode(),
                new NodeTopologyStatus(
                    Instant.now().toString(),
                    List.of(
                        new AllocationEntry(
                            uid, "ml", "p4", "main", "nvidia.com/gpu", List.of(gpu), true)),
                    List.of(),
                    List.of())))
        .create();
    ClusterState state = start(false);
    await(
        "the allocation",
        () ->
            readiness.synced()
                && state.node("pix-node") != null
                && state.node("pix-node").free().free(gpu) == 0);
    awaitPodWatch();
    client.pods().inNamespace("ml").withName("p4").delete();
    await("the freed GPU", () -> state.node("pix-node").free().free(gpu) == 1);
    assertEquals(
        1,
        client
            .resources(NodeTopology.class)
            .withName("pix-node")
            .get()
            .getStatus()
            .allocations()
            .size(),
        "the agent has not reported yet");
  }

  @Test
  @DisplayName("a Node advertising rdma/hca: 4k (shared mode) gives its HCAs 1,000 units each")
  void sharedHcaUnitsFromNodeCapacity() throws Exception {
    int hcas = TestMachines.pixNode().hcas().size();
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("pix-node")
                .endMetadata()
                .withNewStatus()
                .withCapacity(Map.of(ResourceNames.HCA, new Quantity(hcas + "k")))
                .endStatus()
                .build())
        .create();
    client
        .resources(NodeTopology.class)
        .resource(NodeTopologyMapper.toResource(TestMachines.pixNode()))
        .create();
    ClusterState state = start(false);
    await(
        "the units",
        () -> state.node("pix-node") != null && state.node("pix-node").slotsPerHca() == 1000);
    assertEquals(1000 * hcas, state.node("pix-node").free().freeUnits(DeviceKind.HCA));
  }

  @Test
  @DisplayName("leader election on a Lease: the replica that holds it is Ready")
  void leaderElection() throws Exception {
    start(true);
    await("leadership", readiness::leader);
    await("ready", readiness::ready);
    var lease =
        client.leases().inNamespace("tandem-system").withName("tandem-scheduler-extender").get();
    assertEquals("replica-a", lease.getSpec().getHolderIdentity());
  }

  @Test
  @DisplayName("the API server going away makes the replica degraded, and it stays ready")
  void degradedWhileTheApiServerIsAway() throws Exception {
    start(false);
    await("ready", readiness::ready);
    assertTrue(readiness.degraded().isEmpty());
    server.shutdown();
    await("degraded", () -> readiness.degraded().isPresent());
    assertTrue(readiness.ready(), "a degraded replica stays ready");
    assertTrue(
        readiness.degraded().get().contains("lost their watch on the API server"),
        readiness.degraded().get());
    // The mock server cannot start again; the end of the degradation is asserted end to end
    // (TestAPIServerRestartedMidRun).
  }

  private RecordedRequest lastRequest(String pathEnd) throws InterruptedException {
    RecordedRequest found = null;
    int n = server.getRequestCount();
    for (int i = 0; i < n; i++) {
      RecordedRequest r = server.takeRequest();
      if (r.getPath().endsWith(pathEnd)) {
        found = r;
      }
    }
    assertNotNull(found, "no request to *" + pathEnd);
    return found;
  }
}
