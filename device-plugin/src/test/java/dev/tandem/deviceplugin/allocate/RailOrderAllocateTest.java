package dev.tandem.deviceplugin.allocate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.container.RdmaEnvironment;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Allocate lists a container's HCAs, and in joint mode its GPUs, in rail order (docs/rails.md), so
 * that every rank of a gang lists them alike whatever order the kubelet granted them in.
 */
@DisplayName("Allocate: HCAs and GPUs in rail order")
class RailOrderAllocateTest {

  /** GPUi's NIC on rail 7-i: rail order differs from name, PCI and grant order. */
  private static final Machine HGX = RealMachines.hgxH200RailsReversed();

  @Test
  @DisplayName(
      "NCCL_IB_HCA and UCX_NET_DEVICES by ascending rail; the granted ids in the kubelet's order")
  void hcas() {
    ContainerAllocateResponse r =
        allocate(ResourceConfig.DEFAULT, List.of("mlx5_0", "mlx5_bond_0", "mlx5_9", "mlx5_5"));
    assertEquals(
        "=mlx5_9,mlx5_5,mlx5_0,mlx5_bond_0", r.getEnvsOrThrow(RdmaEnvironment.NCCL_IB_HCA));
    assertEquals(
        "mlx5_9:1,mlx5_5:1,mlx5_0:1,mlx5_bond_0:1",
        r.getEnvsOrThrow(RdmaEnvironment.UCX_NET_DEVICES));
    assertEquals(
        "mlx5_0,mlx5_bond_0,mlx5_9,mlx5_5",
        r.getEnvsOrThrow(RdmaEnvironment.TANDEM_RDMA_DEVICE_IDS));
  }

  @Test
  @DisplayName("allocateAllDevices: the container's own HCAs by rail, then every other by rail")
  void allDevices() {
    ContainerAllocateResponse r =
        allocate(
            ResourceConfig.parse("{\"allocateAllDevices\": true}", "t"),
            List.of("mlx5_0", "mlx5_9"));
    assertEquals(
        "=mlx5_9,mlx5_0,mlx5_8,mlx5_7,mlx5_6,mlx5_5,mlx5_4,mlx5_3,mlx5_bond_0",
        r.getEnvsOrThrow(RdmaEnvironment.NCCL_IB_HCA));
    assertEquals("mlx5_9,mlx5_0", r.getEnvsOrThrow(RdmaEnvironment.TANDEM_RDMA_DEVICES));
  }

  @Test
  @DisplayName("joint mode: NVIDIA_VISIBLE_DEVICES follows the rails of the GPUs' switches")
  void gpus() {
    ContainerAllocateResponse r =
        GpuAnswer.responder(HGX, true)
            .allocate(AllocateResponderTest.request(List.of("GPU-0", "GPU-7", "GPU-3")))
            .getContainerResponses(0);
    assertEquals("GPU-7,GPU-3,GPU-0", r.getEnvsOrThrow(GpuAnswer.NVIDIA_VISIBLE_DEVICES));
    assertEquals(
        List.of("nvidia.com/gpu=GPU-7", "nvidia.com/gpu=GPU-3", "nvidia.com/gpu=GPU-0"),
        r.getCdiDevicesList().stream().map(d -> d.getName()).toList());
  }

  private static ContainerAllocateResponse allocate(ResourceConfig config, List<String> ids) {
    return RdmaAnswer.responder(Inventory.of(HGX, config), ib -> Optional.of("uverbs-" + ib))
        .allocate(AllocateResponderTest.request(ids))
        .getContainerResponses(0);
  }
}
