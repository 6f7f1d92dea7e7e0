package dev.tandem.deviceplugin.preferred.joint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.plan.Plan;
import dev.tandem.deviceplugin.config.Mode;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.config.Selectors;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.deviceplugin.resource.DeviceTable;
import dev.tandem.deviceplugin.resource.GpuDevices;
import dev.tandem.deviceplugin.resource.HcaDevices;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "joint state without sockets: shared slots, single-resource containers, a second side that is not offered")
class JointPolicyTest {

  final Machine m = RealMachines.dgxA100("n1");

  /** What guided each answer, as {@code SIDE outcome}. */
  final List<String> outcomes = new ArrayList<>();

  JointPolicy joint(ResourceConfig c, List<PlannedPod> pods) {
    Inventory inventory = Inventory.of(m, c);
    DeviceTable hcas =
        new DeviceTable(
            new HcaDevices(inventory, ib -> Optional.empty(), new UverbsLocator(Path.of("/"))));
    DeviceTable gpus =
        new DeviceTable(new GpuDevices(m, "nvidia.com/gpu", List.of(), false, "no probes"));
    PendingPodLocator matcher =
        new PendingPodLocator(
            "n1",
            c.resourceName(),
            "nvidia.com/gpu",
            pods == null ? null : n -> Future.succeededFuture(pods),
            null,
            500);
    return new JointPolicy(
        inventory,
        hcas::healthyIds,
        gpus::healthyIds,
        "nvidia.com/gpu",
        matcher,
        Clock.systemUTC(),
        Duration.ofSeconds(30),
        (side, outcome) -> outcomes.add(side + " " + outcome.label()));
  }

  static List<String> ask(JointPolicy j, Side side, List<String> available, int size) {
    return j.choose(new PreferredRequest(side, available, List.of(), size)).await();
  }

  static void allocate(JointPolicy j, Side side, List<String> ids) {
    j.allocated(side, ids);
  }

  List<String> gpus() {
    return m.gpus().stream().map(d -> d.id()).toList();
  }

  @Test
  @DisplayName(
      "shared mode: HCA slots first, then the GPUs under the same top switch as the slots' HCA")
  void sharedSlots() {
    ResourceConfig shared =
        new ResourceConfig(Mode.SHARED, "rdma/hca", 4, Selectors.ALL, Duration.ofSeconds(10));
    JointPolicy j = joint(shared, null);
    List<String> slots = new ArrayList<>();
    for (String h : List.of("mlx5_4", "mlx5_5")) {
      for (int s = 0; s < 4; s++) {
        slots.add(h + "-slot-" + s);
      }
    }
    List<String> hcas = ask(j, Side.HCA, slots, 2);
    assertEquals(2, hcas.size());
    allocate(j, Side.HCA, hcas);
    List<String> g = ask(j, Side.GPU, gpus(), 2);
    assertEquals(
        List.of("GPU-4", "GPU-5"), g.stream().sorted().toList(), "GPUs of the quadrant of " + hcas);
    allocate(j, Side.GPU, g);
    assertEquals(0, j.reservations());
    assertEquals(List.of("HCA fallback", "GPU fallback"), outcomes, "no plan: the allocator's");
  }

  @Test
  @DisplayName(
      "a first side never allocated (admission abandoned): the next call of the other resource decides afresh")
  void abandonedAdmission() {
    JointPolicy j = joint(ResourceConfig.DEFAULT, null);
    assertEquals(List.of("GPU-0"), ask(j, Side.GPU, gpus(), 1));
    // no Allocate for GPU-0; a new container's HCA call comes first and must not follow GPU-0
    List<String> h = ask(j, Side.HCA, List.of("mlx5_6", "mlx5_7"), 1);
    assertEquals(2, j.reservations(), "a new reservation, HCA first: " + h);
    allocate(j, Side.HCA, h);
    List<String> g = ask(j, Side.GPU, gpus(), 1);
    assertTrue(
        g.get(0).equals("GPU-6") || g.get(0).equals("GPU-7"),
        "the GPU follows " + h + ", got " + g);
  }

  @Test
  @DisplayName("a planned container that asks for GPUs only leaves no reservation")
  void gpuOnlyContainer() {
    Plan p =
        new Plan(
            "n1",
            List.of("GPU-2"),
            List.of(),
            "X",
            "none/preferred",
            Instant.parse("2026-11-22T03:00:00Z"));
    JointPolicy j =
        joint(
            ResourceConfig.DEFAULT,
            List.of(new PlannedPod("t", "p", p, Map.of(), Map.of("main", 1))));
    assertEquals(List.of("GPU-2"), ask(j, Side.GPU, gpus(), 1));
    assertEquals(0, j.reservations());
    assertEquals(List.of("GPU followed_plan"), outcomes);
  }

  @Test
  @DisplayName(
      "the planned HCAs are not offered to the second call: it answers the HCAs nearest the GPUs it got")
  void secondDegradesToNearest() {
    Plan p =
        new Plan(
            "n1",
            List.of("GPU-6", "GPU-7"),
            List.of("mlx5_6", "mlx5_7"),
            "PXB",
            "switch/required",
            Instant.parse("2026-11-22T03:00:00Z"));
    JointPolicy j =
        joint(
            ResourceConfig.DEFAULT,
            List.of(new PlannedPod("t", "p", p, Map.of("main", 2), Map.of("main", 2))));
    assertEquals(List.of("GPU-6", "GPU-7"), ask(j, Side.GPU, gpus(), 2));
    allocate(j, Side.GPU, List.of("GPU-6", "GPU-7"));
    List<String> hcas =
        ask(j, Side.HCA, List.of("mlx5_0", "mlx5_1", "mlx5_6", "mlx5_8", "mlx5_9"), 2);
    assertEquals(2, hcas.size());
    assertTrue(hcas.contains("mlx5_6"), "the planned HCA still offered comes first: " + hcas);
    assertEquals(List.of("GPU followed_plan", "HCA followed_gpus"), outcomes);
  }
}
