package dev.tandem.agent.audit;

import static dev.tandem.kubelet.podresources.FakeKubelet.container;
import static dev.tandem.kubelet.podresources.FakeKubelet.devices;
import static dev.tandem.kubelet.podresources.FakeKubelet.pod;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.crd.UnitEntry;
import dev.tandem.discovery.nvml.FakeNvml;
import dev.tandem.discovery.nvml.Nvml;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.podresources.FakeKubelet;
import dev.tandem.kubelet.podresources.PodResourcesClient;
import dev.tandem.kubelet.podresources.v1.AllocatableResourcesResponse;
import dev.tandem.kubelet.podresources.v1.ContainerDevices;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true, https = false)
@ExtendWith(VertxExtension.class)
class AuditLoopIT {

  static KubernetesClient client;

  @TempDir Path dir;

  private final Machine machine = TestMachines.twoSwitchesAndLoneHca("gpu-1");
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicReference<AuditReport> last = new AtomicReference<>();
  private Vertx vertx;
  private FakeKubelet kubelet;
  private PodResourcesClient podResources;
  private AuditLoop loop;

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
    kubelet = new FakeKubelet();
    client.pods().inAnyNamespace().delete();
    client.v1().events().inAnyNamespace().delete();
    podResources =
        PodResourcesClient.create(vertx, dir.resolve("kubelet.sock"), Duration.ofSeconds(15));
    // The mock server ignores field selectors on spec.nodeName, so the test filters on the client
    // side.
    NodePods onNode =
        () ->
            client.pods().inAnyNamespace().list().getItems().stream()
                .filter(p -> "gpu-1".equals(p.getSpec().getNodeName()))
                .toList();
    AuditLoop.Peers peers =
        new AuditLoop.Peers(
            podResources,
            onNode,
            new AlignmentEvents(client, "gpu-1", Clock.systemUTC()),
            new AlignmentMetrics(registry),
            new MigDiscovery(
                "the fake libnvidia-ml",
                new Nvml(FakeNvml.library().toString())::migGpus,
                Clock.systemUTC(),
                Duration.ofMinutes(5)));
    loop =
        new AuditLoop(
            vertx,
            peers,
            "gpu-1",
            Duration.ofHours(1),
            new AllocationAudit(AlignmentPolicy.DEFAULT, ResourceNames.DEFAULT),
            () -> Optional.of(machine),
            last::set);
  }

  @AfterEach
  void tearDown() {
    podResources.close().await();
    kubelet.stop().await();
  }

  private static Pod apiPod(String name, String node, int gpus, int hcas) {
    return client
        .pods()
        .inNamespace("ml")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ml")
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("main")
                .withNewResources()
                .withLimits(
                    Map.of(
                        "nvidia.com/gpu",
                        new Quantity(Integer.toString(gpus)),
                        "rdma/hca",
                        new Quantity(Integer.toString(hcas))))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static List<Event> events() {
    return client.v1().events().inNamespace("ml").list().getItems();
  }

  @Test
  @DisplayName(
      "a misaligned pod gets one Warning event (not one per poll), a metric and an audit entry")
  void misalignedPod() throws Exception {
    Pod bad = apiPod("train-0", "gpu-1", 2, 1);
    apiPod("elsewhere", "gpu-2", 1, 1);
    List<ContainerDevices> d = new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-a0"));
    d.addAll(devices("nvidia.com/gpu", 1, "GPU-b0"));
    d.addAll(devices("rdma/hca", 0, "mlx5_0"));
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(pod("ml", "train-0", container("main", d)))
            .build());
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();

    loop.pollOnce().await();
    loop.pollOnce().await();

    AuditReport r = last.get();
    assertEquals("SYS", r.audit().get(0).worstLocality());
    assertEquals(bad.getMetadata().getUid(), r.audit().get(0).podUid());
    List<Event> events = events();
    assertEquals(1, events.size(), events.toString());
    Event e = events.get(0);
    assertEquals(
        List.of("Warning", "AlignmentNotMet", "Pod", "train-0", bad.getMetadata().getUid()),
        List.of(
            e.getType(),
            e.getReason(),
            e.getInvolvedObject().getKind(),
            e.getInvolvedObject().getName(),
            e.getInvolvedObject().getUid()));
    assertTrue(e.getMessage().contains("GPU-b0 and mlx5_0 are SYS apart"), e.getMessage());
    String scrape = registry.scrape();
    assertTrue(
        scrape.contains(
            "tandem_pod_alignment_worst_locality{namespace=\"ml\",pod=\"train-0\","
                + "policy=\"switch/required\",policy_met=\"false\"} 5.0"),
        scrape);
    assertTrue(scrape.contains("tandem_pods_audited{policy_met=\"false\"} 1.0"), scrape);
    assertTrue(scrape.contains("tandem_podresources_up 1.0"), scrape);
  }

  @Test
  @DisplayName(
      "while the kubelet socket is absent the report says audit is waiting; it audits once the socket appears")
  void waitsForKubelet() throws Exception {
    loop.pollOnce().await();
    assertTrue(
        last.get().notes().get(0).contains("waiting for the kubelet"),
        last.get().notes().toString());
    assertTrue(registry.scrape().contains("tandem_podresources_up 0.0"));

    apiPod("train-1", "gpu-1", 1, 1);
    List<ContainerDevices> d = new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-a0"));
    d.addAll(devices("rdma/hca", 0, "mlx5_0"));
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(pod("ml", "train-1", container("main", d)))
            .build());
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();

    assertEquals("PIX", last.get().audit().get(0).worstLocality());
    assertEquals(List.of(), last.get().notes());
    assertEquals(List.of(), events());
  }

  private void allocatable(List<ContainerDevices> devices) {
    kubelet.allocatable.set(
        AllocatableResourcesResponse.newBuilder().addAllDevices(devices).build());
  }

  @Test
  @DisplayName(
      "shared slots and time-sliced replicas: audited as their HCA and GPU, and counted per device"
          + " in the report's units")
  void slotsAndReplicasAuditedAndCounted() throws Exception {
    apiPod("train-2", "gpu-1", 1, 1);
    List<ContainerDevices> held = new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-a0::1"));
    held.addAll(devices("rdma/hca", 0, "mlx5_0-slot-3"));
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(pod("ml", "train-2", container("main", held)))
            .build());
    List<ContainerDevices> offered =
        new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-a0::0", "GPU-a0::1", "GPU-b0::0"));
    offered.addAll(
        devices("rdma/hca", 0, "mlx5_0-slot-0", "mlx5_0-slot-1", "mlx5_0-slot-2", "mlx5_0-slot-3"));
    allocatable(offered);
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();

    AuditReport r = last.get();
    assertEquals("PIX", r.audit().get(0).worstLocality());
    assertEquals(List.of(), r.notes());
    assertEquals(
        List.of(
            new UnitEntry("nvidia.com/gpu", "GPU-a0", 2),
            new UnitEntry("nvidia.com/gpu", "GPU-b0", 1),
            new UnitEntry("rdma/hca", "mlx5_0", 4)),
        r.units());
  }

  @Test
  @DisplayName(
      "an allocatable id that stands for no device (a MIG device NVML does not know) leaves its"
          + " resource uncounted, with a note naming it")
  void unplacedIdLeavesResourceUncounted() throws Exception {
    FakeNvml.layout(dir, "{\"gpus\": []}");
    String mig = "MIG-5a0b6e3c-1d2f-4e5a-8b9c-0d1e2f3a4b5c";
    List<ContainerDevices> offered = new ArrayList<>(devices("nvidia.com/gpu", 0, "GPU-a0", mig));
    offered.addAll(devices("rdma/hca", 0, "mlx5_0"));
    allocatable(offered);
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();

    AuditReport r = last.get();
    assertEquals(List.of(new UnitEntry("rdma/hca", "mlx5_0", 1)), r.units());
    assertEquals(1, r.notes().size(), r.notes().toString());
    assertTrue(r.notes().get(0).contains("nvidia.com/gpu " + mig), r.notes().get(0));
  }

  private static final String MIG_A1 = "MIG-6a1e35b3-1c2d-5e0f-9a8b-7c6d5e4f3a21";
  private static final String MIG_A2 = "MIG-0d4c2b1a-9f8e-5d7c-8b6a-5f4e3d2c1b0a";
  private static final String MIG_A3 = "MIG-f1e2d3c4-b5a6-5978-8695-a4b3c2d1e0f9";
  private static final String MIG_B1 = "MIG-1b2c3d4e-5f60-5718-9a0b-c1d2e3f40516";
  private static final String MIG_B2 = "MIG-2c3d4e5f-6071-5829-8b1c-d2e3f4051627";

  /**
   * NVML's layout: GPU-a0 by its UUID; GPU-b0 under a UUID discovery does not know, found by its
   * bus id (the bus-id fallback).
   */
  private String nvmlLayout(int initError) {
    PciAddress b0 = machine.device("GPU-b0").orElseThrow().address();
    String bus =
        String.format("%08X:%02X:%02X.%X", b0.domain(), b0.bus(), b0.device(), b0.function());
    return """
        {"initError": %d, "gpus": [
          {"uuid": "GPU-a0", "busId": "00000000:01:00.0", "migMode": "enabled",
           "migDevices": ["%s", "%s", "", "%s"]},
          {"uuid": "GPU-77777777-0000-4000-8000-000000000000", "busId": "%s",
           "migMode": "enabled", "migDevices": ["%s", "%s"]}
        ]}
        """
        .formatted(initError, MIG_A1, MIG_A2, MIG_A3, bus, MIG_B1, MIG_B2);
  }

  @Test
  @DisplayName(
      "MIG devices under nvidia.com/gpu (mig-strategy single): NVML maps each to its GPU (by UUID,"
          + " else bus id); audited as that GPU, a unit per MIG device, the layout in the report;"
          + " NVML read once, and not at all for a node without MIG ids")
  void migDevicesAuditedAndCounted() throws Exception {
    FakeNvml.layout(dir, nvmlLayout(0));
    int before = FakeNvml.inits();
    allocatable(devices("rdma/hca", 0, "mlx5_0"));
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();
    assertEquals(before, FakeNvml.inits(), "no MIG id: NVML is not called");

    apiPod("train-3", "gpu-1", 1, 1);
    List<ContainerDevices> held = new ArrayList<>(devices("nvidia.com/gpu", 0, MIG_A2));
    held.addAll(devices("rdma/hca", 0, "mlx5_0"));
    kubelet.pods.set(
        ListPodResourcesResponse.newBuilder()
            .addPodResources(pod("ml", "train-3", container("main", held)))
            .build());
    List<ContainerDevices> offered =
        new ArrayList<>(
            devices("nvidia.com/gpu", 0, MIG_A1, MIG_A2, MIG_A3, MIG_B1 + "::0", MIG_B1 + "::1"));
    offered.addAll(devices("nvidia.com/gpu", 1, MIG_B2 + "::0", MIG_B2 + "::1"));
    offered.addAll(devices("rdma/hca", 0, "mlx5_0"));
    allocatable(offered);
    loop.pollOnce().await();
    loop.pollOnce().await();

    AuditReport r = last.get();
    assertEquals(before + 1, FakeNvml.inits(), "NVML read once while the MIG ids stay the same");
    assertEquals(0, FakeNvml.open(), "and shut down");
    assertEquals("PIX", r.audit().get(0).worstLocality());
    assertEquals(List.of(), r.notes());
    assertEquals(
        List.of(
            new UnitEntry("nvidia.com/gpu", "GPU-a0", 3),
            new UnitEntry("nvidia.com/gpu", "GPU-b0", 4),
            new UnitEntry("rdma/hca", "mlx5_0", 1)),
        r.units());
    assertEquals(
        List.of(
            new MigEntry("GPU-a0", List.of(MIG_A1, MIG_A2, MIG_A3)),
            new MigEntry("GPU-b0", List.of(MIG_B1, MIG_B2))),
        r.mig());
  }

  @Test
  @DisplayName(
      "NVML failing (driver not loaded): a note naming the error, MIG GPUs counted from the tree,"
          + " no retry while the ids stay the same")
  void nvmlFailureIsANote() throws Exception {
    FakeNvml.layout(dir, nvmlLayout(9));
    int before = FakeNvml.inits();
    allocatable(devices("nvidia.com/gpu", 0, MIG_A1, MIG_B1));
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();
    loop.pollOnce().await();

    AuditReport r = last.get();
    assertEquals(before + 1, FakeNvml.inits());
    assertEquals(List.of(), r.units());
    assertEquals(List.of(), r.mig());
    assertTrue(
        r.notes().get(0).startsWith("the kubelet reports MIG devices (2, e.g. " + MIG_B1 + ")"),
        r.notes().toString());
    assertTrue(r.notes().get(0).contains("Driver Not Loaded (9)"), r.notes().get(0));
  }

  @Test
  @DisplayName(
      "the kubelet offers rdma/vhca and nvidia.com/gpu.shared (NVIDIA's renamed time-sliced GPUs)"
          + " but not the agent's rdma/hca and nvidia.com/gpu: a note each poll naming the setting"
          + " to change, one WARN each")
  void resourceNamesOtherThanTheAgents() throws Exception {
    List<ContainerDevices> offered =
        new ArrayList<>(devices("rdma/vhca", 0, "0000:12:02.1", "0000:12:02.2"));
    offered.addAll(devices("nvidia.com/gpu.shared", 0, "GPU-a0::0", "GPU-a0::1"));
    allocatable(offered);
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    String log = logged(() -> loop.pollOnce().await());
    String again = logged(() -> loop.pollOnce().await());

    List<String> notes = last.get().notes();
    assertEquals(2, notes.size(), notes.toString());
    assertTrue(
        notes.get(0).startsWith("the kubelet offers rdma/vhca but no rdma/hca")
            && notes.get(0).contains("set --hca-resource-name rdma/vhca (TANDEM_HCA_RESOURCE_NAME;")
            && notes.get(0).contains("resourceNames.hca"),
        notes.get(0));
    assertTrue(
        notes.get(1).startsWith("the kubelet offers nvidia.com/gpu.shared but no nvidia.com/gpu")
            && notes.get(1).contains("set --gpu-resource-name nvidia.com/gpu.shared"),
        notes.get(1));
    assertEquals(2, log.lines().filter(l -> l.contains("WARN")).count(), log);
    assertTrue(log.contains("node gpu-1: the kubelet offers rdma/vhca"), log);
    assertEquals(0, again.lines().filter(l -> l.contains("WARN")).count(), again);
  }

  @Test
  @DisplayName("the agent's names offered (beside others of their domain): no note")
  void resourceNamesMatch() throws Exception {
    List<ContainerDevices> offered = new ArrayList<>(devices("rdma/hca", 0, "mlx5_0"));
    offered.addAll(devices("rdma/vhca", 0, "0000:12:02.1"));
    offered.addAll(devices("nvidia.com/gpu", 0, "GPU-a0"));
    allocatable(offered);
    kubelet.start(vertx, dir.resolve("kubelet.sock")).await();
    loop.pollOnce().await();

    assertEquals(List.of(), last.get().notes());
  }

  /** Runs {@code what} with the log (slf4j-simple writes to System.err) returned as text. */
  private static String logged(Runnable what) {
    PrintStream err = System.err;
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(text, true, StandardCharsets.UTF_8));
      what.run();
    } finally {
      System.setErr(err);
    }
    return text.toString(StandardCharsets.UTF_8);
  }
}
