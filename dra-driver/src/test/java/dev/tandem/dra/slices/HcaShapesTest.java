package dev.tandem.dra.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.dra.AttributeValue;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("HCA shapes: one device per VF (sriov), shared HCAs with shares, eRDMA adapters")
class HcaShapesTest {

  static final PoolSpec SRIOV = PoolSpec.joint().withShape(HcaShape.SRIOV);
  static final PoolSpec SHARED = PoolSpec.joint().withShape(HcaShape.SHARED);

  /** The fixture's machine as sysfs discovery reads it back from a FakeSysfs tree. */
  static Machine discovered(Path root, Machine m) throws Exception {
    FakeSysfs.write(root, m);
    return TopologySources.discoverOnce(DiscoveryOptions.sysfs(m.nodeName(), root)).machine();
  }

  static Map<String, PublishedDevice> byName(NodePool pool) {
    return pool.devices().stream()
        .collect(Collectors.toMap(PublishedDevice::name, Function.identity()));
  }

  /** GPU-a0 (0000:13:00.0), under the switch of mlx5_0, whatever discovery named it. */
  static PublishedDevice gpuA0(Map<String, PublishedDevice> pool) {
    return pool.values().stream()
        .filter(d -> TestMachines.pci(0x13, 0).equals(d.device().address()))
        .findFirst()
        .orElseThrow();
  }

  static String text(PublishedDevice d, String attribute) {
    AttributeValue v = d.attributes().get(attribute);
    return v == null ? null : v.string() != null ? v.string() : String.valueOf(v.integer());
  }

  @Test
  @DisplayName(
      "sriov: each VF with its PF's address and the PF's switch keys; the PF is not published,"
          + " an HCA without VFs is, whole")
  void sriov(@TempDir Path root) throws Exception {
    Machine m =
        discovered(
            root,
            TestMachines.withVirtualFunctions(
                TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_0", "mlx5_3", "mlx5_4"));
    Device pf = m.device("mlx5_0").orElseThrow();
    assertTrue(m.device("mlx5_3").orElseThrow().hca().virtualFunction(), "discovery: a VF");

    Map<String, PublishedDevice> pool = byName(PoolBuilder.build(m, SRIOV));
    Map<String, PublishedDevice> whole = byName(PoolBuilder.build(m, PoolSpec.joint()));

    assertEquals(
        List.of("mlx5-1", "mlx5-2", "mlx5-3", "mlx5-4"),
        pool.keySet().stream().filter(n -> !n.startsWith("gpu-")).sorted().toList());
    assertEquals(4, pool.size() - 4, "and the four GPUs");
    for (String vf : List.of("mlx5-3", "mlx5-4")) {
      PublishedDevice d = pool.get(vf);
      assertEquals(pf.address().toString(), text(d, DraAttributes.PF), vf);
      assertEquals("hca", text(d, DraAttributes.KIND));
      assertEquals(vf.replace('-', '_'), text(d, DraAttributes.IB_DEVICE));
      assertEquals(d.device().address().toString(), text(d, DraAttributes.PCI_BUS_ID));
      for (String key :
          List.of(
              DraAttributes.PCIE_SWITCH,
              DraAttributes.PIX_GROUP,
              DraAttributes.PCIE_ROOT,
              DraAttributes.NUMA_NODE)) {
        assertEquals(text(whole.get("mlx5-0"), key), text(d, key), vf + " " + key);
      }
      assertEquals(
          text(gpuA0(pool), DraAttributes.PCIE_SWITCH), text(d, DraAttributes.PCIE_SWITCH));
      assertFalse(d.allowMultipleAllocations());
    }
    assertNull(text(pool.get("mlx5-1"), DraAttributes.PF), "an HCA without VFs has no pf");
    assertFalse(whole.containsKey("mlx5-3"), "the hca shape publishes no VF");
  }

  @Test
  @DisplayName("sriov: a VF without RDMA driver is published tainted, with its PF")
  void driverlessVf() {
    Machine m =
        TestMachines.withVirtualFunctions(
            TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1", (String) null);
    Device vf = m.hcas().stream().filter(d -> d.hca().virtualFunction()).findFirst().orElseThrow();
    PublishedDevice d =
        byName(PoolBuilder.build(m, SRIOV)).get("hca-" + vf.id().replaceAll("[:.]", "-"));
    assertEquals(List.of(Taint.unhealthy(PoolBuilder.NO_RDMA_DRIVER)), d.taints());
    assertEquals(m.device("mlx5_1").orElseThrow().address().toString(), text(d, DraAttributes.PF));
  }

  @Test
  @DisplayName("sriov: a VF whose PF discovery does not know is refused, naming the VF and the fix")
  void unknownPf() {
    Machine withVf =
        TestMachines.withVirtualFunctions(
            TestMachines.twoSwitchesAndLoneHca("n1"), "mlx5_1", "mlx5_5");
    Machine orphan =
        new Machine(
            withVf.nodeName(),
            withVf.source(),
            withVf.pcie(),
            withVf.devices().stream()
                .map(
                    d ->
                        "mlx5_5".equals(d.id())
                            ? d.toBuilder()
                                .hca(d.hca().toBuilder().physicalFunction(null).build())
                                .build()
                            : d)
                .toList());
    InvalidPoolException e =
        assertThrows(InvalidPoolException.class, () -> PoolBuilder.build(orphan, SRIOV));
    assertTrue(
        e.getMessage().contains("SR-IOV VF mlx5_5")
            && e.getMessage().contains("node n1")
            && e.getMessage().contains("no known PF")
            && e.getMessage().contains("--mode hca"),
        e.getMessage());
    assertEquals(7, PoolBuilder.build(orphan, PoolSpec.joint()).devices().size(), "hca: no VF");
  }

  @Test
  @DisplayName(
      "shared: every HCA allocatable many times, tandem.dev/shares of N, one per claim by default;"
          + " GPUs and the hca shape unchanged")
  void shared() {
    Machine m = TestMachines.twoSwitchesAndLoneHca("n1");
    NodePool pool =
        PoolBuilder.build(m, new PoolSpec(PoolSpec.DEFAULT_DRIVER, true, HcaShape.SHARED, 64));
    for (PublishedDevice d : pool.devices()) {
      boolean hca = d.name().startsWith("mlx5");
      assertEquals(hca, d.allowMultipleAllocations(), d.name());
      assertEquals(
          hca ? Map.of(DraAttributes.SHARES, new ConsumableCapacity(64, 1)) : Map.of(),
          d.capacity(),
          d.name());
    }
    assertEquals(
        byName(PoolBuilder.build(m, PoolSpec.joint())).get("mlx5-0").attributes(),
        byName(pool).get("mlx5-0").attributes(),
        "the same attributes as a whole HCA");
    assertEquals(
        DeviceIds.DEFAULT_SHARES_PER_HCA,
        byName(PoolBuilder.build(m, SHARED))
            .get("mlx5-1")
            .capacity()
            .get(DraAttributes.SHARES)
            .value());
    assertTrue(byName(PoolBuilder.build(m, PoolSpec.joint())).get("mlx5-1").capacity().isEmpty());
  }

  @Test
  @DisplayName("shares per HCA of 0 or less: refused naming the driver and the least it takes")
  void noShares() {
    for (int shares : new int[] {0, -1}) {
      InvalidPoolException e =
          assertThrows(
              InvalidPoolException.class,
              () -> new PoolSpec(PoolSpec.DEFAULT_DRIVER, false, HcaShape.SHARED, shares));
      assertTrue(
          e.getMessage().contains(shares + " shares per HCA")
              && e.getMessage().contains("at least 1"),
          e.getMessage());
    }
  }

  @Test
  @DisplayName(
      "eRDMA (erdma_N, driver erdma) read by sysfs discovery: HCAs with link layer Ethernet, in"
          + " every shape")
  void erdma(@TempDir Path root) throws Exception {
    Machine m = discovered(root, TestMachines.withErdma(TestMachines.twoSwitchesAndLoneHca("n1")));
    for (PoolSpec spec : List.of(PoolSpec.joint(), SRIOV, SHARED)) {
      Map<String, PublishedDevice> pool = byName(PoolBuilder.build(m, spec));
      for (String name : List.of("erdma-0", "erdma-1", "erdma-2")) {
        PublishedDevice d = pool.get(name);
        assertEquals("hca", text(d, DraAttributes.KIND), name);
        assertEquals(name.replace('-', '_'), text(d, DraAttributes.IB_DEVICE));
        assertEquals("Ethernet", text(d, DraAttributes.LINK_LAYER));
        assertEquals(List.of(), d.taints(), name);
        assertTrue(d.attributes().containsKey(DraAttributes.PCIE_ROOT), name);
        assertEquals(spec.shape() == HcaShape.SHARED, d.allowMultipleAllocations());
      }
      assertEquals(
          text(gpuA0(pool), DraAttributes.PCIE_SWITCH),
          text(pool.get("erdma-0"), DraAttributes.PCIE_SWITCH),
          "erdma_0 sits beside GPU-a0");
    }
  }
}
