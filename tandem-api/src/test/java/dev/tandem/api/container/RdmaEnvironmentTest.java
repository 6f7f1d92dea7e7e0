package dev.tandem.api.container;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.tandem.api.container.RdmaEnvironment.Granted;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.PciAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The environment of HCAs that serve their GPUs through ConnectX-8 Data Direct. */
@DisplayName("RdmaEnvironment: Data Direct HCAs")
class RdmaEnvironmentTest {

  private static final GraceTray TRAY = GraceTray.GB300_CX8;

  /**
   * The tray's HCA {@code ibDevice} as discovery publishes it: tied to its Data Direct function.
   */
  private static Device tied(String ibDevice) {
    Device hca = TRAY.machine().device(ibDevice).orElseThrow();
    PciAddress function = TRAY.dataDirect().get(ibDevice);
    return hca.toBuilder().hca(hca.hca().toBuilder().dataDirect(function).build()).build();
  }

  @Test
  @DisplayName(
      "NCCL_IB_HCA and UCX_NET_DEVICES name the ibverbs devices (NCCL matches those, then adds"
          + " _dma), PCIDEVICE the NICs' own addresses, NCCL_IB_DATA_DIRECT left to NCCL")
  void dataDirectHcas() {
    List<Granted> granted = List.of(granted("mlx5_1"), granted("mlx5_0"));

    Map<String, String> env = RdmaEnvironment.of("tandem.dev/rdma-hca", granted);

    assertEquals("=mlx5_1,mlx5_0", env.get(RdmaEnvironment.NCCL_IB_HCA));
    assertEquals("mlx5_1:1,mlx5_0:1", env.get(RdmaEnvironment.UCX_NET_DEVICES));
    assertEquals("mlx5_1,mlx5_0", env.get(RdmaEnvironment.TANDEM_RDMA_DEVICES));
    assertEquals(
        "0002:03:00.0,0000:03:00.0",
        env.get(RdmaEnvironment.pciDeviceVariable("tandem.dev/rdma-hca")));
    assertFalse(env.containsKey("NCCL_IB_DATA_DIRECT"), env.toString());
  }

  private static Granted granted(String ibDevice) {
    return new Granted(ibDevice, tied(ibDevice));
  }
}
