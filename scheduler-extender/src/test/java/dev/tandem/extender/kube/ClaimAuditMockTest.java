package dev.tandem.extender.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.fixtures.RealMachines;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@EnableKubernetesMockClient(crud = true)
@DisplayName("against the fabric8 mock API server: a pending pod's unsatisfiable claim")
class ClaimAuditMockTest {

  KubernetesMockServer server;
  KubernetesClient client;
  private Vertx vertx;
  private ClusterParts cluster;
  private ExtenderMetrics metrics;
  private ClaimWatch watch;

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
    cluster = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null);
    cluster.state().putTopology(RealMachines.hgxH100EightNic(), 1, List.of());
    cluster.readiness().synced(true);
    cluster.readiness().leader(true);
    metrics = new ExtenderMetrics(cluster);
    ClaimAudit audit =
        new ClaimAudit(
            client, cluster.state(), cluster.readiness(), metrics, "replica-a", Clock.systemUTC());
    watch = new ClaimWatch(vertx, client, audit, 60_000);
  }

  @AfterEach
  void tearDown() throws Exception {
    watch.close();
    vertx.close().toCompletionStage().toCompletableFuture().get();
  }

  private static void await(String what, BooleanSupplier condition) {
    Awaitility.await(what)
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(20))
        .until(condition::getAsBoolean);
  }

  /** A claim edited by hand: {@code gpus} GPUs and as many HCAs under one pcieSwitch. */
  private static ResourceClaim oneSwitch(String name, String uid, long gpus) {
    return new ResourceClaimBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ml")
        .withUid(uid)
        .withGeneration(1L)
        .endMetadata()
        .withNewSpec()
        .withNewDevices()
        .addNewRequest()
        .withName("gpus")
        .withNewExactly()
        .withDeviceClassName(ClaimGenerator.GPU_CLASS)
        .withCount(gpus)
        .endExactly()
        .endRequest()
        .addNewRequest()
        .withName("hcas")
        .withNewExactly()
        .withDeviceClassName(ClaimGenerator.HCA_CLASS)
        .withCount(gpus)
        .endExactly()
        .endRequest()
        .addNewConstraint()
        .withMatchAttribute("tandem.dev/pcieSwitch")
        .withRequests("gpus", "hcas")
        .endConstraint()
        .endDevices()
        .endSpec()
        .build();
  }

  private static Pod pending(String name, String uid, String claim) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("ml")
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .addNewResourceClaim()
        .withName("devices")
        .withResourceClaimName(claim)
        .endResourceClaim()
        .addNewContainer()
        .withName("main")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  private List<Event> events(String reason) {
    return client.v1().events().inNamespace("ml").list().getItems().stream()
        .filter(e -> reason.equals(e.getReason()))
        .toList();
  }

  @Test
  @DisplayName(
      "4 GPUs + 4 HCAs under one switch on an HGX H100: exactly one ClaimUnsatisfiable Event with"
          + " the reason, however often the pod changes; a claim that fits: none")
  void oneEventPerClaim() {
    client.resource(oneSwitch("gpu-hca", "claim-1", 4)).create();
    client.resource(oneSwitch("fits", "claim-2", 1)).create();
    client.resource(pending("fits", "pod-2", "fits")).create();
    client.resource(pending("trainer", "pod-1", "gpu-hca")).create();
    watch.start();

    await("the Event", () -> !events(ClaimAudit.REASON).isEmpty());
    Event event = events(ClaimAudit.REASON).get(0);
    assertEquals("Warning", event.getType());
    assertEquals("trainer", event.getInvolvedObject().getName());
    assertTrue(
        event
            .getMessage()
            .startsWith(
                "claim gpu-hca: constraint matchAttribute tandem.dev/pcieSwitch on [gpus, hcas]"
                    + " asks 4 GPUs and 4 HCAs with one value of tandem.dev/pcieSwitch and no node"
                    + " has that; the most under one value is 1 GPU and 1 HCA (hgx-h100-8nic, "),
        event.getMessage());
    assertTrue(
        event.getMessage().contains("`./tandem claim --gpus 4 --hcas 4 --alignment switch`"),
        event.getMessage());

    // the pod changes (a label), then a probe pod proves the watch has delivered that change
    client
        .pods()
        .inNamespace("ml")
        .withName("trainer")
        .edit(
            p ->
                new PodBuilder(p)
                    .editMetadata()
                    .addToLabels("seen", "again")
                    .endMetadata()
                    .build());
    client.resource(oneSwitch("probe", "claim-3", 4)).create();
    client.resource(pending("probe", "pod-3", "probe")).create();
    await("the probe's Event", () -> events(ClaimAudit.REASON).size() == 2);
    assertEquals(
        List.of("probe", "trainer"),
        events(ClaimAudit.REASON).stream()
            .map(e -> e.getInvolvedObject().getName())
            .sorted()
            .toList());
    // counted just after the Event is created: the count may trail the Event the test sees
    await(
        "the count",
        () -> metrics.scrape().contains("tandem_extender_unsatisfiable_claims_total 2.0"));
  }
}
