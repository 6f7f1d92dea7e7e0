package dev.tandem.dra.cdi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A claim's CDI spec names its HCAs in rail order, as the device plugin's Allocate does. */
@DisplayName("a claim's CDI spec: NCCL_IB_HCA and UCX_NET_DEVICES in rail order")
class ClaimSpecRailOrderTest {

  @Test
  @DisplayName("HCAs granted against their rails' order are listed by ascending rail")
  void railOrder() {
    Machine hgx =
        Rails.fromMapping(
                RealMachines.hgxH200(), Map.of("mlx5_0", 2, "mlx5_3", 1, "mlx5_4", 0), "test")
            .machine();
    List<ClaimSpec.GrantedHca> granted =
        List.of("mlx5_0", "mlx5_4", "mlx5_3").stream()
            .map(n -> new ClaimSpec.GrantedHca("hca-" + n, withUverbs(hgx.device(n).orElseThrow())))
            .toList();

    List<String> env =
        ClaimSpec.of("n1", "uid-1", "rdma/hca", granted).spec().containerEdits().env();

    assertTrue(env.contains("NCCL_IB_HCA==mlx5_4,mlx5_3,mlx5_0"), env.toString());
    assertTrue(env.contains("UCX_NET_DEVICES=mlx5_4:1,mlx5_3:1,mlx5_0:1"), env.toString());
    assertTrue(
        env.contains("TANDEM_RDMA_DEVICE_IDS=hca-mlx5_0,hca-mlx5_4,hca-mlx5_3"), env.toString());
  }

  private static Device withUverbs(Device hca) {
    return hca.toBuilder()
        .hca(hca.hca().toBuilder().uverbs("uverbs-" + hca.hca().ibDevice()).build())
        .build();
  }
}
