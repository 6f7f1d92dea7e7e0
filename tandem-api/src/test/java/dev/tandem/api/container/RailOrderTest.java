package dev.tandem.api.container;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.container.RdmaEnvironment.Granted;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The order a container's HCAs and GPUs are listed in: rail order, so that every rank of a gang
 * lists them the same way whatever order the kubelet granted them in.
 */
@DisplayName("RailOrder: HCAs and GPUs listed by rail")
class RailOrderTest {

  /** GPUi's NIC on rail 7-i: rail order differs from name, PCI and grant order. */
  private static final Machine HGX = RealMachines.hgxH200RailsReversed();

  @Test
  @DisplayName(
      "NCCL_IB_HCA, UCX_NET_DEVICES and TANDEM_RDMA_DEVICES list HCAs by ascending rail, HCAs on no"
          + " rail last; the granted ids and PCI addresses stay in grant order")
  void hcasByRail() {
    List<Granted> granted = granted("mlx5_0", "mlx5_bond_0", "mlx5_9", "mlx5_5");

    Map<String, String> env = RdmaEnvironment.of("rdma/hca", granted);

    assertEquals("=mlx5_9,mlx5_5,mlx5_0,mlx5_bond_0", env.get(RdmaEnvironment.NCCL_IB_HCA));
    assertEquals(
        "mlx5_9:1,mlx5_5:1,mlx5_0:1,mlx5_bond_0:1", env.get(RdmaEnvironment.UCX_NET_DEVICES));
    assertEquals("mlx5_9,mlx5_5,mlx5_0,mlx5_bond_0", env.get(RdmaEnvironment.TANDEM_RDMA_DEVICES));
    assertEquals(
        "mlx5_0,mlx5_bond_0,mlx5_9,mlx5_5", env.get(RdmaEnvironment.TANDEM_RDMA_DEVICE_IDS));
  }

  @Test
  @DisplayName("two ranks granted the same rails in different orders list them identically")
  void sameOrderOnEveryRank() {
    assertEquals(
        RdmaEnvironment.of("rdma/hca", granted("mlx5_3", "mlx5_8", "mlx5_6"))
            .get(RdmaEnvironment.NCCL_IB_HCA),
        RdmaEnvironment.of("rdma/hca", granted("mlx5_6", "mlx5_3", "mlx5_8"))
            .get(RdmaEnvironment.NCCL_IB_HCA));
  }

  @Test
  @DisplayName(
      "with every offered HCA usable: the container's own by rail, then the others by rail")
  void ownThenOthers() {
    List<Device> own = hcas("mlx5_0", "mlx5_9");
    List<Device> all = new ArrayList<>(own);
    all.addAll(hcas("mlx5_bond_0", "mlx5_4", "mlx5_8"));

    Map<String, String> env = RdmaEnvironment.of("rdma/hca", granted("mlx5_0", "mlx5_9"), own, all);

    assertEquals("=mlx5_9,mlx5_0,mlx5_8,mlx5_4,mlx5_bond_0", env.get(RdmaEnvironment.NCCL_IB_HCA));
    assertEquals("mlx5_9,mlx5_0", env.get(RdmaEnvironment.TANDEM_RDMA_DEVICES));
  }

  @Test
  @DisplayName("HCAs without rails keep the order given (no mapping, no rule applied)")
  void noRails() {
    Machine plain = RealMachines.hgxH200();
    List<Granted> granted =
        List.of("mlx5_9", "mlx5_0").stream()
            .map(n -> new Granted(n, plain.device(n).orElseThrow()))
            .toList();
    assertEquals(
        "=mlx5_9,mlx5_0", RdmaEnvironment.of("rdma/hca", granted).get(RdmaEnvironment.NCCL_IB_HCA));
  }

  @Test
  @DisplayName(
      "GPUs follow the rail of the HCA under their switch; GPUs near none keep their order")
  void gpusByRail() {
    List<String> ids = new ArrayList<>(List.of("GPU-0", "GPU-7", "unknown", "GPU-3"));
    ids.sort(RailOrder.gpuIds(HGX));
    assertEquals(List.of("GPU-7", "GPU-3", "GPU-0", "unknown"), ids);
  }

  @Test
  @DisplayName("two GPUs on the switch of one rail's HCA: by PCI address (DGX A100, rails by PCI)")
  void gpusOnOneSwitch() {
    Machine dgx = Rails.byPciOrder(RealMachines.dgxA100()).machine();
    List<String> ids = new ArrayList<>(List.of("GPU-3", "GPU-1", "GPU-2", "GPU-0"));
    ids.sort(RailOrder.gpuIds(dgx));
    assertEquals(List.of("GPU-0", "GPU-1", "GPU-2", "GPU-3"), ids);
  }

  private static List<Device> hcas(String... names) {
    return List.of(names).stream().map(n -> HGX.device(n).orElseThrow()).toList();
  }

  private static List<Granted> granted(String... names) {
    return hcas(names).stream().map(h -> new Granted(h.hca().ibDevice(), h)).toList();
  }
}
