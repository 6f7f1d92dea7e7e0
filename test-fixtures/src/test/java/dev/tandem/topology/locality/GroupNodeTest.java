package dev.tandem.topology.locality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.PcieNodeKind;
import dev.tandem.topology.model.TopologyBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the PCIe node naming a device's group, as other components publish it")
class GroupNodeTest {

  @Test
  @DisplayName("XE8640: cuda0 and mlx5_0 share switch and root port; cuda2 has its own")
  void xe8640() {
    Machine m = RealMachines.xe8640();
    Map<String, PcieNode> nodes = nodes(m);
    Device gpu0 = m.device("GPU-0").orElseThrow();
    Device nic0 = m.device("mlx5_0").orElseThrow();
    Device gpu2 = m.device("GPU-2").orElseThrow();
    PcieNode pxb = LocalityIndex.groupNode(Locality.PXB, gpu0, nodes).orElseThrow();
    assertEquals(PcieNodeKind.ROOT_PORT, pxb.kind());
    assertEquals(Optional.of(pxb), LocalityIndex.groupNode(Locality.PXB, nic0, nodes));
    assertNotEquals(Optional.of(pxb), LocalityIndex.groupNode(Locality.PXB, gpu2, nodes));
    PcieNode pix = LocalityIndex.groupNode(Locality.PIX, gpu0, nodes).orElseThrow();
    assertEquals(PcieNodeKind.SWITCH_UPSTREAM, pix.kind());
    assertEquals(Optional.of(pix), LocalityIndex.groupNode(Locality.PIX, nic0, nodes));
    // the same verdict as the locality the allocator uses
    assertEquals(Locality.PIX, LocalityIndex.of(m).locality("GPU-0", "mlx5_0"));
  }

  @Test
  @DisplayName("a device on a host bridge directly is a group of its own at PIX and PXB")
  void noBridge() {
    Machine m =
        new TopologyBuilder("n1", "test")
            .cpuDomain("numa:0", List.of(0))
            .hostBridge("hostbridge:0000:10", "numa:0")
            .device(
                new Device(
                    "GPU-0",
                    DeviceKind.GPU,
                    null,
                    null,
                    0,
                    "hostbridge:0000:10",
                    -1,
                    -1,
                    null,
                    true,
                    null))
            .build();
    Device gpu = m.gpus().get(0);
    assertEquals(Optional.empty(), LocalityIndex.groupNode(Locality.PIX, gpu, nodes(m)));
    assertEquals(Optional.empty(), LocalityIndex.groupNode(Locality.PXB, gpu, nodes(m)));
    assertEquals(
        "hostbridge:0000:10",
        LocalityIndex.groupNode(Locality.PHB, gpu, nodes(m)).orElseThrow().id());
  }

  private static Map<String, PcieNode> nodes(Machine m) {
    Map<String, PcieNode> out = new HashMap<>();
    m.pcie().forEach(n -> out.put(n.id(), n));
    return out;
  }
}
