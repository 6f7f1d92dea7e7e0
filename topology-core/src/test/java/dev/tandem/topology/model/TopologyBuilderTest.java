package dev.tandem.topology.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.locality.LocalityIndex;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class TopologyBuilderTest {

  private static final int AMD_GPU = 0x1002;
  private static final int AMD_CPU = 0x1022;
  private static final int NVIDIA = 0x10de;
  private static final int PLX = 0x10b5;

  private static Device gpu(String id, String address, String parent, int vendor) {
    return Device.gpu(id)
        .name(id)
        .address(PciAddress.parse(address))
        .numaNode(0)
        .parentId(parent)
        .vendorId(vendor)
        .deviceId(0x66a1)
        .build();
  }

  private static Device hca(String name, String address, String parent) {
    return Device.hca(name, HcaInfo.named(name))
        .name(name)
        .address(PciAddress.parse(address))
        .numaNode(0)
        .parentId(parent)
        .vendorId(0x15b3)
        .deviceId(0x101b)
        .build();
  }

  @Test
  @DisplayName("an MI50's own bridges fold into the GPU: it hangs off the root port, not a switch")
  void onCardBridgesFold() {
    TopologyBuilder b = new TopologyBuilder("corona", "test");
    b.cpuDomain("package:1", List.of(1)).hostBridge("hostbridge:0000:c0", "package:1");
    b.bridge(PciAddress.parse("c0:03.1"), "hostbridge:0000:c0", AMD_CPU, 0x1483);
    b.bridge(PciAddress.parse("c1:00.0"), "pci:0000:c0:03.1", AMD_GPU, 0x14a0);
    b.bridge(PciAddress.parse("c2:00.0"), "pci:0000:c1:00.0", AMD_GPU, 0x14a1);
    b.device(gpu("rsmi5", "c3:00.0", "pci:0000:c2:00.0", AMD_GPU));
    b.endpoint(PciAddress.parse("c3:00.1"), "pci:0000:c2:00.0");
    b.bridge(PciAddress.parse("c0:03.2"), "hostbridge:0000:c0", AMD_CPU, 0x1483);
    b.device(hca("mlx5_0", "c4:00.0", "pci:0000:c0:03.2"));
    Machine m = b.build();
    assertEquals("pci:0000:c0:03.1", m.device("rsmi5").orElseThrow().parentId());
    assertEquals(List.of(), m.switches());
    assertEquals(Locality.PHB, LocalityIndex.of(m).locality("rsmi5", "mlx5_0"));
    assertTrue(m.node("pci:0000:c1:00.0").isEmpty(), "on-card bridges are pruned");
  }

  @Test
  @DisplayName(
      "a K80-style card switch with two GPUs below it is kept as a switch; the GPUs are PIX")
  void sharedSwitchStays() {
    TopologyBuilder b = new TopologyBuilder("k80", "test");
    b.cpuDomain("numa:0", List.of(0)).hostBridge("hostbridge:0000:00", "numa:0");
    b.bridge(PciAddress.parse("00:02.0"), "hostbridge:0000:00", 0x8086, 1);
    b.bridge(PciAddress.parse("01:00.0"), "pci:0000:00:02.0", PLX, 0x8747);
    b.bridge(PciAddress.parse("02:08.0"), "pci:0000:01:00.0", PLX, 0x8747);
    b.bridge(PciAddress.parse("02:10.0"), "pci:0000:01:00.0", PLX, 0x8747);
    b.device(gpu("g0", "03:00.0", "pci:0000:02:08.0", NVIDIA));
    b.device(gpu("g1", "04:00.0", "pci:0000:02:10.0", NVIDIA));
    Machine m = b.build();
    assertEquals(PcieNodeKind.SWITCH_UPSTREAM, m.node("pci:0000:01:00.0").orElseThrow().kind());
    assertEquals(PcieNodeKind.SWITCH_DOWNSTREAM, m.node("pci:0000:02:08.0").orElseThrow().kind());
    assertEquals(PcieNodeKind.ROOT_PORT, m.node("pci:0000:00:02.0").orElseThrow().kind());
    assertEquals(Locality.PIX, LocalityIndex.of(m).locality("g0", "g1"));
  }

  @Test
  @DisplayName("duplicate ids (scrubbed UUIDs) become PCI addresses, with a warning naming them")
  void duplicateIds() {
    TopologyBuilder b = new TopologyBuilder("xe8640", "test");
    b.cpuDomain("numa:0", List.of(0)).hostBridge("hb", "numa:0");
    b.device(gpu("GPU-00000000-0000-0000-0000-000000000000", "4e:00.0", "hb", 0x10de));
    b.device(gpu("GPU-00000000-0000-0000-0000-000000000000", "5f:00.0", "hb", 0x10de));
    b.device(gpu("GPU-1", "6f:00.0", "hb", 0x10de));
    Machine m = b.build();
    assertEquals(
        List.of("0000:4e:00.0", "0000:5f:00.0", "GPU-1"),
        m.gpus().stream().map(Device::id).toList());
    assertEquals(2, b.warnings().size());
    assertTrue(
        b.warnings().get(0).contains("GPU-00000000-0000-0000-0000-000000000000"),
        b.warnings().get(0));
  }

  @Test
  @DisplayName("a parent that was never added is an error naming the device and the parent")
  void missingParent() {
    TopologyBuilder b = new TopologyBuilder("n1", "test");
    b.cpuDomain("numa:0", List.of(0));
    b.device(hca("mlx5_0", "01:00.0", "pci:0000:00:01.0"));
    InvalidTopologyException e = assertThrows(InvalidTopologyException.class, b::build);
    assertEquals(
        "topology of node n1 is invalid: device mlx5_0 names parent pci:0000:00:01.0, which was never added",
        e.getMessage());
  }

  @Test
  @DisplayName("PCI addresses parse both forms and refuse garbage with the expected form")
  void pciAddresses() {
    assertEquals("0000:4e:00.0", PciAddress.parse("4e:00.0").toString());
    assertEquals(new PciAddress(0x35, 3, 0, 1), PciAddress.parse("0035:03:00.1"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> PciAddress.parse("4e-00"));
    assertEquals(
        "not a PCI address: '4e-00' (expected dddd:bb:dd.f, for example 0000:4e:00.0)",
        e.getMessage());
  }

  @Test
  @DisplayName("HCAs sort by name as people count: mlx5_2 before mlx5_10")
  void naturalOrder() {
    TopologyBuilder b = new TopologyBuilder("n", "test");
    b.cpuDomain("numa:0", List.of(0)).hostBridge("hb", "numa:0");
    b.device(hca("mlx5_10", "01:00.0", "hb"))
        .device(hca("mlx5_2", "02:00.0", "hb"))
        .device(hca("mlx5_bond_0", "03:00.0", "hb"));
    assertEquals(
        List.of("mlx5_2", "mlx5_10", "mlx5_bond_0"),
        b.build().hcas().stream().map(Device::id).toList());
  }
}
