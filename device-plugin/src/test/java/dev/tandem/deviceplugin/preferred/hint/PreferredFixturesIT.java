package dev.tandem.deviceplugin.preferred.hint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.deviceplugin.preferred.PendingPlans;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.Topologies;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("preferred allocation on real fixtures: GPUs held, else plan, else allocator")
class PreferredFixturesIT {

  static Machine fixture(String file) {
    return TopologySources.discoverOnce(DiscoveryOptions.hwlocXml("n1", Topologies.path(file)))
        .machine();
  }

  static Machine xe8640() {
    return fixture("dell-poweredge-xe8640-h100x4.xml");
  }

  static Plan plan(List<String> gpus, List<String> hcas, String at) {
    return new Plan("n1", gpus, hcas, "PIX", "switch/required", Instant.parse(at));
  }

  static PendingPlans pods(PlannedPod... pods) {
    return node -> Future.succeededFuture(List.of(pods));
  }

  static PodResourcesSource holding(HeldDevices... held) {
    return () -> Future.succeededFuture(List.of(held));
  }

  static List<String> answer(
      Machine m,
      ResourceConfig c,
      List<String> available,
      int size,
      PendingPlans plans,
      PodResourcesSource pr) {
    Inventory inv = Inventory.of(m, c);
    HintPolicy p =
        new HintPolicy(
            inv,
            new PendingPodLocator(
                m.nodeName(), c.resourceName(), c.gpu().resourceName(), plans, pr, 500));
    return p.choose(new PreferredRequest(Side.HCA, available, List.of(), size)).await();
  }

  static List<String> allHcas(Machine m, ResourceConfig c) {
    return Inventory.of(m, c).devices().stream().map(PluginDevice::id).toList();
  }

  static PlannedPod pod(String name, Plan plan, int hcas) {
    return new PlannedPod("team", name, plan, Map.of("train", hcas));
  }

  static HeldDevices gpus(String pod, String... ids) {
    return new HeldDevices("team", pod, "train", "nvidia.com/gpu", List.of(ids));
  }

  @Test
  @DisplayName("XE8640: the container holds cuda1 or cuda3 → the HCA on that GPU's switch")
  void xe8640Gpus() {
    Machine m = xe8640();
    ResourceConfig c = ResourceConfig.DEFAULT;
    Plan wrong = plan(List.of(), List.of("mlx5_0"), "2026-11-22T03:00:00Z");
    assertEquals(
        List.of("mlx5_2"),
        answer(
            m, c, allHcas(m, c), 1, pods(pod("p", wrong, 1)), holding(gpus("p", "0000:5f:00.0"))));
    assertEquals(
        List.of("mlx5_3"),
        answer(
            m, c, allHcas(m, c), 1, pods(pod("p", wrong, 1)), holding(gpus("p", "0000:db:00.0"))));
  }

  @Test
  @DisplayName("XE8640: cuda0 held, two HCAs → both ports of the ConnectX-6 on cuda0's switch")
  void xe8640TwoHcas() {
    Machine m = xe8640();
    ResourceConfig c = ResourceConfig.DEFAULT;
    Plan p = plan(List.of(), List.of("mlx5_2", "mlx5_3"), "2026-11-22T03:00:00Z");
    assertEquals(
        List.of("mlx5_0", "mlx5_1"),
        answer(
            m,
            c,
            List.of("mlx5_3", "mlx5_2", "mlx5_1", "mlx5_0"),
            2,
            pods(pod("p", p, 2)),
            holding(gpus("p", "0000:4e:00.0"))));
  }

  @Test
  @DisplayName(
      "XE8640: no GPUs held yet → the plan's HCA; neither → the allocator's best pair (one switch)")
  void xe8640PlanThenAllocator() {
    Machine m = xe8640();
    ResourceConfig c = ResourceConfig.DEFAULT;
    assertEquals(
        List.of("mlx5_3"),
        answer(
            m,
            c,
            allHcas(m, c),
            1,
            pods(
                pod(
                    "p",
                    plan(List.of("0000:db:00.0"), List.of("mlx5_3"), "2026-11-22T03:00:00Z"),
                    1)),
            holding()));
    List<String> best = answer(m, c, allHcas(m, c), 2, null, null);
    assertEquals(List.of("mlx5_0", "mlx5_1"), best);
    assertEquals(Locality.PIX, LocalityIndex.of(m).locality(best.get(0), best.get(1)));
  }

  @Test
  @DisplayName(
      "Relion X1904GT in shared mode: GPUs held → slots of mlx5_0, the HCA on their switch")
  void relionShared() {
    Machine m = fixture("penguin-relion-x1904gt-p100x2.xml");
    ResourceConfig c = ResourceConfig.parse("{\"mode\":\"shared\",\"slotsPerHca\":4}", "test");
    String gpu = m.gpus().get(1).id();
    List<String> got =
        answer(
            m,
            c,
            List.of("mlx5_0-slot-1", "mlx5_0-slot-3"),
            1,
            pods(pod("p", plan(List.of(gpu), List.of("mlx5_0"), "2026-11-22T03:00:00Z"), 1)),
            holding(gpus("p", gpu)));
    assertEquals(List.of("mlx5_0-slot-1"), got);
  }

  @Test
  @DisplayName(
      "DGX-A100 shape: GPU-2/GPU-3 held → mlx5_2/mlx5_3 under their top switch; plan → its HCAs; none → allocator")
  void dgx() {
    Machine m = RealMachines.dgxA100("n1");
    ResourceConfig c = ResourceConfig.DEFAULT;
    Plan p = plan(List.of("GPU-6", "GPU-7"), List.of("mlx5_6", "mlx5_7"), "2026-11-22T03:00:00Z");
    assertEquals(
        List.of("mlx5_2", "mlx5_3"),
        answer(m, c, allHcas(m, c), 2, pods(pod("p", p, 2)), holding(gpus("p", "GPU-2", "GPU-3"))));
    assertEquals(Locality.PXB, LocalityIndex.of(m).locality("GPU-2", "mlx5_2"));
    assertEquals(
        List.of("mlx5_6", "mlx5_7"),
        answer(m, c, allHcas(m, c), 2, pods(pod("p", p, 2)), holding()));
    LocalityIndex index = LocalityIndex.of(m);
    Allocation best =
        (Allocation)
            new Allocator(index)
                .allocate(
                    new AllocationRequest(0, 2, AlignmentPolicy.DEFAULT),
                    Availability.allFree(index, 1));
    assertEquals(best.hcaIds(), answer(m, c, allHcas(m, c), 2, pods(), holding()));
  }

  @Test
  @DisplayName("the oldest plan of a matching size wins; pods already holding rdma/hca are skipped")
  void podMatching() {
    Machine m = RealMachines.dgxA100("n1");
    ResourceConfig c = ResourceConfig.DEFAULT;
    PlannedPod older = pod("older", plan(List.of(), List.of("mlx5_4"), "2026-11-22T02:00:00Z"), 1);
    PlannedPod newer = pod("newer", plan(List.of(), List.of("mlx5_6"), "2026-11-22T03:00:00Z"), 1);
    PlannedPod bigger =
        pod("bigger", plan(List.of(), List.of("mlx5_0", "mlx5_1"), "2026-11-22T01:00:00Z"), 2);
    assertEquals(
        List.of("mlx5_4"), answer(m, c, allHcas(m, c), 1, pods(newer, older, bigger), holding()));
    HeldDevices olderDone =
        new HeldDevices("team", "older", "train", "rdma/hca", List.of("mlx5_4"));
    assertEquals(
        List.of("mlx5_6"),
        answer(m, c, allHcas(m, c), 1, pods(newer, older, bigger), holding(olderDone)));
  }

  @Test
  @DisplayName(
      "a hung API server and kubelet do not hang admission: both are asked, neither answers, and the"
          + " answer is the allocator's, as with the lookups off")
  void hungLookup() {
    Machine m = RealMachines.dgxA100("n1");
    ResourceConfig c = ResourceConfig.DEFAULT;
    AtomicInteger asked = new AtomicInteger();
    PendingPlans hung =
        node -> {
          asked.incrementAndGet();
          return Promise.<List<PlannedPod>>promise().future();
        };
    PodResourcesSource silent =
        () -> {
          asked.incrementAndGet();
          return Promise.<List<HeldDevices>>promise().future();
        };
    List<String> got = answer(m, c, allHcas(m, c), 2, hung, silent);
    assertEquals(2, asked.get(), "the answer came after asking both lookups");
    assertEquals(answer(m, c, allHcas(m, c), 2, null, null), got);
  }
}
