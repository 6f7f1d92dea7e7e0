package dev.tandem.api.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class NodeTopologyMapperTest {

  static Stream<Machine> machines() {
    return Stream.of(
        TestMachines.twoSwitchesAndLoneHca("gpu-1"),
        TestMachines.gpusOnRootPorts("gpu-2"),
        TestMachines.vmWithVf("vm-3"),
        Rails.byPciOrder(TestMachines.twoSwitchesAndLoneHca("gpu-5")).machine(),
        Machine.empty("cpu-4", "sysfs"));
  }

  @ParameterizedTest
  @MethodSource("machines")
  @DisplayName("toMachine(toResource(m)) equals m")
  void roundTrip(Machine machine) {
    assertEquals(machine, NodeTopologyMapper.toMachine(NodeTopologyMapper.toResource(machine)));
  }

  @ParameterizedTest
  @MethodSource("machines")
  @DisplayName("the machine survives JSON serialization of the resource")
  void roundTripThroughJson(Machine machine) {
    String json = Serialization.asJson(NodeTopologyMapper.toResource(machine));
    NodeTopology back = Serialization.unmarshal(json, NodeTopology.class);
    assertEquals(machine, NodeTopologyMapper.toMachine(back));
  }

  @Test
  @DisplayName(
      "with sharing, two nodes of one model read back equal and hold one PCIe tree, device names and"
          + " HCA attributes")
  void sharing() {
    Map<Object, Object> held = new HashMap<>();
    Sharing sharing =
        new Sharing() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> T share(T value) {
            return value == null ? null : (T) held.computeIfAbsent(value, v -> v);
          }
        };
    Machine a = TestMachines.twoSwitchesAndLoneHca("gpu-1");
    Machine b = TestMachines.twoSwitchesAndLoneHca("gpu-2");
    Machine readA = NodeTopologyMapper.toMachine(roundTripped(a), sharing);
    Machine readB = NodeTopologyMapper.toMachine(roundTripped(b), sharing);
    assertEquals(a, readA);
    assertEquals(b, readB);
    assertSame(readA.pcie(), readB.pcie());
    for (int i = 0; i < readA.devices().size(); i++) {
      Device x = readA.devices().get(i);
      Device y = readB.devices().get(i);
      assertSame(x.parentId(), y.parentId());
      assertSame(x.address(), y.address());
      assertSame(x.name(), y.name());
      assertSame(x.hca(), y.hca());
    }
  }

  /** The resource as an informer would receive it: every string a new instance. */
  private static NodeTopology roundTripped(Machine m) {
    return Serialization.unmarshal(
        Serialization.asJson(NodeTopologyMapper.toResource(m)), NodeTopology.class);
  }

  @Test
  @DisplayName(
      "the resource is named after the node and carries kind, apiVersion and the summary counts")
  void namesAndSummary() {
    NodeTopology r = NodeTopologyMapper.toResource(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    assertEquals("gpu-1", r.getMetadata().getName());
    assertEquals("tandem.dev/v1alpha1", r.getApiVersion());
    assertEquals("NodeTopology", r.getKind());
    assertEquals(new NodeTopologySpec.Summary(4, 3, 2), r.getSpec().summary());
    assertEquals(List.of(0, 1), r.getSpec().numaNodes());
    assertEquals("hwloc", r.getSpec().source());
  }

  @Test
  @DisplayName(
      "devices carry resource name, hex PCI ids and the PIX group (switch) from LocalityIndex")
  void deviceFields() {
    NodeTopologySpec spec = NodeTopologyMapper.toSpec(TestMachines.twoSwitchesAndLoneHca("gpu-1"));
    DeviceEntry gpu = byId(spec, "GPU-a0");
    DeviceEntry hca = byId(spec, "mlx5_0");
    DeviceEntry lone = byId(spec, "mlx5_1");
    assertEquals("nvidia.com/gpu", gpu.resourceName());
    assertEquals("rdma/hca", hca.resourceName());
    assertEquals("10de", gpu.vendor());
    assertEquals("15b3", hca.vendor());
    assertEquals("pci:0000:11:00.0", gpu.switchId());
    assertEquals(gpu.switchId(), hca.switchId());
    assertEquals("pci:0000:20:01.0", lone.switchId());
    assertEquals("mlx5_0", hca.hca().ibDevice());
    assertEquals(List.of("ib0"), hca.hca().netdevs());
    assertNull(gpu.hca());
  }

  @Test
  @DisplayName("unknown NUMA node and PCI ids are absent, not -1, in the JSON")
  void unknownsAreAbsent() {
    String json =
        Serialization.asJson(NodeTopologyMapper.toResource(TestMachines.gpusOnRootPorts("gpu-2")));
    assertTrue(!json.contains(":-1"), json);
    assertTrue(!json.contains("\"numaNode\":null"), json);
    assertTrue(json.contains("\"switch\""), json);
  }

  @Test
  @DisplayName("an unreadable object fails with the node's name and the problem")
  void invalidResource() {
    NodeTopology r = NodeTopologyMapper.toResource(TestMachines.gpusOnRootPorts("gpu-2"));
    DeviceEntry d = r.getSpec().devices().get(0);
    DeviceEntry broken =
        new DeviceEntry(
            d.id(),
            "TPU",
            d.name(),
            d.resourceName(),
            d.address(),
            d.numaNode(),
            d.parent(),
            d.switchId(),
            d.vendor(),
            d.device(),
            d.model(),
            d.healthy(),
            d.hca());
    r.setSpec(
        new NodeTopologySpec(
            "sysfs", r.getSpec().summary(), List.of(), r.getSpec().pcie(), List.of(broken)));
    InvalidNodeTopologyException e =
        assertThrows(InvalidNodeTopologyException.class, () -> NodeTopologyMapper.toMachine(r));
    assertTrue(e.getMessage().contains("gpu-2") && e.getMessage().contains("TPU"), e.getMessage());
    assertTrue(
        e.getMessage().contains(".kind: 'TPU' is not one of [GPU, HCA]"),
        "the field is named: " + e.getMessage());
  }

  private static DeviceEntry byId(NodeTopologySpec spec, String id) {
    return spec.devices().stream().filter(d -> d.id().equals(id)).findFirst().orElseThrow();
  }
}
