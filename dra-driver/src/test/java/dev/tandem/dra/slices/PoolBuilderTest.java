package dev.tandem.dra.slices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.dra.AttributeValue;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.fixtures.PciModel;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.model.TopologyBuilder;
import dev.tandem.topology.rail.Rails;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("a node's pool from its tree: names, attributes, switch keys, taints, slices")
class PoolBuilderTest {

  static List<Machine> realMachines() {
    return List.of(
        RealMachines.hgxH100EightNic(),
        RealMachines.hgxH100TwelveNic(),
        RealMachines.hgxH200(),
        RealMachines.xe8640(),
        RealMachines.dgxA100(),
        RealMachines.relion(),
        TestMachines.sixteenBySixteen(),
        TestMachines.twoSwitchesAndLoneHca("n1"),
        twoRootPortsOneHostBridge());
  }

  /**
   * One host bridge with two root ports, each with a switch holding a GPU and an HCA, and an HCA on
   * a third root port directly: PXB within a root port, PHB across them (no model above has two
   * root ports under one host bridge).
   */
  static Machine twoRootPortsOneHostBridge() {
    TopologyBuilder b =
        new TopologyBuilder("rp2", "test")
            .cpuDomain("numa:0", List.of(0))
            .hostBridge("hostbridge:0000:40", "numa:0");
    for (int port = 0; port < 2; port++) {
      PciAddress rp = new PciAddress(0, 0x40, 1 + port, 0);
      b.bridge(rp, "hostbridge:0000:40", PciModel.INTEL, 0x352a);
      PciAddress up = TestMachines.pci(0x41 + 0x10 * port, 0);
      b.bridge(up, TopologyBuilder.bridgeId(rp), PciModel.BROADCOM, 0xc030);
      for (int k = 0; k < 2; k++) {
        PciAddress down = TestMachines.pci(0x42 + 0x10 * port, k);
        b.bridge(down, TopologyBuilder.bridgeId(up), PciModel.BROADCOM, 0xc030);
        PciAddress at = TestMachines.pci(0x43 + 0x10 * port + k, 0);
        String parent = TopologyBuilder.bridgeId(down);
        b.device(
            k == 0
                ? gpu("GPU-" + port, null, at, 0, parent, PciModel.H100)
                : hca(
                    "mlx5_" + port,
                    "mlx5_" + port,
                    at,
                    0,
                    parent,
                    PciModel.CONNECTX_7,
                    HcaInfo.named("mlx5_" + port)));
      }
    }
    PciAddress rp = new PciAddress(0, 0x40, 3, 0);
    b.bridge(rp, "hostbridge:0000:40", PciModel.INTEL, 0x352a);
    b.device(
        hca(
            "mlx5_2",
            "mlx5_2",
            TestMachines.pci(0x70, 0),
            0,
            TopologyBuilder.bridgeId(rp),
            PciModel.CONNECTX_7,
            HcaInfo.named("mlx5_2")));
    return b.build();
  }

  static Map<String, PublishedDevice> byTreeId(NodePool pool) {
    return pool.devices().stream()
        .collect(Collectors.toMap(d -> d.device().id(), Function.identity()));
  }

  static String attr(PublishedDevice d, String name) {
    AttributeValue v = d.attributes().get(name);
    return v == null ? null : v.toString();
  }

  @Test
  @DisplayName(
      "on every real machine, equal pcieSwitch is exactly PXB or better, equal pixGroup exactly PIX"
          + " and equal pcieRoot exactly PHB, as topology-core's locality says, for every GPU and HCA")
  void switchKeysAreTheLocalityGroups() {
    assertKeysAreGroups(
        realMachines(),
        Map.of(
            DraAttributes.PCIE_SWITCH, Locality.PXB,
            DraAttributes.PIX_GROUP, Locality.PIX,
            DraAttributes.PCIE_ROOT, Locality.PHB));
  }

  @Test
  @DisplayName(
      "on every machine, VMs and SNC hosts included, equal rootComplex is exactly PHB or better and"
          + " equal cpuDomain exactly NODE or better: the groups numa and root-complex claims name")
  void tandemGroupsAreTheLocalityGroupsEverywhere() {
    List<Machine> machines = new ArrayList<>(realMachines());
    machines.add(TestMachines.vmWithVf("vm"));
    machines.add(TestMachines.twoSockets("two-sockets"));
    assertKeysAreGroups(
        machines,
        Map.of(DraAttributes.ROOT_COMPLEX, Locality.PHB, DraAttributes.CPU_DOMAIN, Locality.NODE));
    for (Machine m : machines) {
      for (PublishedDevice d : PoolBuilder.build(m, PoolSpec.joint()).devices()) {
        assertNotNull(d.attributes().get(DraAttributes.CPU_DOMAIN), m.nodeName() + " " + d.name());
      }
    }
  }

  /** For every pair of published devices: equal values of each key ⇔ within its level. */
  private static void assertKeysAreGroups(List<Machine> machines, Map<String, Locality> keys) {
    for (Machine m : machines) {
      NodePool pool = PoolBuilder.build(m, PoolSpec.joint());
      LocalityIndex index = LocalityIndex.of(m);
      for (PublishedDevice a : pool.devices()) {
        for (PublishedDevice b : pool.devices()) {
          if (a == b) {
            continue;
          }
          Locality l = index.locality(a.device().id(), b.device().id());
          String what = m.nodeName() + " " + a.name() + "/" + b.name() + " " + l;
          keys.forEach(
              (key, level) ->
                  assertEquals(l.isWithin(level), sameKey(a, b, key), key + " " + what));
        }
      }
    }
  }

  private static boolean sameKey(PublishedDevice a, PublishedDevice b, String name) {
    AttributeValue x = a.attributes().get(name);
    return x != null && x.equals(b.attributes().get(name));
  }

  @Test
  @DisplayName("HGX H100, 8 NICs: GPUi and mlx5_i under one switch key; names, kinds, NUMA, PCI")
  void hgx() {
    Machine m = RealMachines.hgxH100EightNic();
    NodePool pool = PoolBuilder.build(m, PoolSpec.joint());
    assertEquals(16, pool.devices().size());
    assertEquals(
        List.of("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7"),
        pool.devices().subList(0, 8).stream().map(PublishedDevice::name).toList());
    Map<String, PublishedDevice> d = byTreeId(pool);
    for (int i = 0; i < 8; i++) {
      PublishedDevice gpu = d.get("GPU-" + i);
      PublishedDevice nic = d.get("mlx5_" + i);
      assertEquals("mlx5-" + i, nic.name());
      assertEquals(
          attr(gpu, DraAttributes.PCIE_SWITCH), attr(nic, DraAttributes.PCIE_SWITCH), "pair " + i);
      assertEquals("\"gpu\"", attr(gpu, DraAttributes.KIND));
      assertEquals("\"hca\"", attr(nic, DraAttributes.KIND));
      assertEquals(String.valueOf(i < 4 ? 0 : 1), attr(nic, DraAttributes.NUMA_NODE));
      assertEquals(
          "\"" + gpu.device().address() + "\"", attr(gpu, DraAttributes.PCI_BUS_ID), "pciBusID");
      assertTrue(attr(gpu, DraAttributes.PCIE_ROOT).matches("\"pci0000:[0-9a-f]{2}\""));
      assertEquals("\"mlx5_" + i + "\"", attr(nic, DraAttributes.IB_DEVICE));
      assertEquals("\"ACTIVE\"", attr(nic, DraAttributes.PORT_STATE));
      assertNull(attr(nic, DraAttributes.RATE_GBPS), "the model's NICs report no rate");
      assertEquals("\"GPU-" + i + "\"", attr(gpu, DraAttributes.UUID));
      assertEquals("\"NVIDIA H100 80GB HBM3\"", attr(gpu, DraAttributes.PRODUCT));
      assertTrue(gpu.taints().isEmpty());
    }
    assertEquals(1, pool.slices().size());
    assertEquals("hgx-h100-8nic-tandem.dev-0", pool.sliceName(0));
    assertEquals("hgx-h100-8nic", pool.poolName());
  }

  @Test
  @DisplayName("rails: DGX A100's GPU-side NICs carry tandem.dev/rail 0-7, its storage NIC none")
  void rails() {
    Map<String, PublishedDevice> d =
        byTreeId(
            PoolBuilder.build(
                Rails.byPciOrder(RealMachines.dgxA100()).machine(), PoolSpec.joint()));
    for (int i = 0; i < 8; i++) {
      assertEquals(String.valueOf(i), attr(d.get("mlx5_" + i), DraAttributes.RAIL), "mlx5_" + i);
    }
    assertNull(attr(d.get("mlx5_8"), DraAttributes.RAIL), "storage NIC");
    assertNull(attr(d.get("GPU-0"), DraAttributes.RAIL), "GPUs have no rail");
  }

  @Test
  @DisplayName("an HCA's port rate: as reported, and its whole Gb/s for CEL selectors")
  void rate() {
    Map<String, PublishedDevice> d =
        byTreeId(PoolBuilder.build(TestMachines.twoSwitchesAndLoneHca("n1"), PoolSpec.joint()));
    PublishedDevice nic = d.get("mlx5_1");
    assertEquals("\"400 Gb/sec (4X NDR)\"", attr(nic, DraAttributes.RATE));
    assertEquals("400", attr(nic, DraAttributes.RATE_GBPS));
  }

  @Test
  @DisplayName("XE8640: cuda2's switch key is shared by no HCA; cuda0's by both ports of its NIC")
  void xe8640() {
    Map<String, PublishedDevice> d =
        byTreeId(PoolBuilder.build(RealMachines.xe8640(), PoolSpec.joint()));
    String lonely = attr(d.get("GPU-2"), DraAttributes.PCIE_SWITCH);
    assertFalse(
        d.values().stream()
            .filter(x -> x.device().kind() == DeviceKind.HCA)
            .anyMatch(x -> lonely.equals(attr(x, DraAttributes.PCIE_SWITCH))));
    String first = attr(d.get("GPU-0"), DraAttributes.PCIE_SWITCH);
    assertEquals(first, attr(d.get("mlx5_0"), DraAttributes.PCIE_SWITCH));
    assertEquals(first, attr(d.get("mlx5_1"), DraAttributes.PCIE_SWITCH));
  }

  @Test
  @DisplayName("DGX A100: the storage NIC's ports share a switch key with each other and no GPU")
  void dgxStorage() {
    Map<String, PublishedDevice> d =
        byTreeId(PoolBuilder.build(RealMachines.dgxA100(), PoolSpec.joint()));
    String storage = attr(d.get("mlx5_8"), DraAttributes.PCIE_SWITCH);
    assertEquals(storage, attr(d.get("mlx5_9"), DraAttributes.PCIE_SWITCH));
    for (int g = 0; g < 8; g++) {
      assertFalse(storage.equals(attr(d.get("GPU-" + g), DraAttributes.PCIE_SWITCH)), "GPU-" + g);
    }
  }

  @Test
  @DisplayName("HCA-only mode leaves the GPUs to NVIDIA's driver; SR-IOV VFs are not HCAs here")
  void hcaOnly() {
    NodePool pool =
        PoolBuilder.build(
            RealMachines.hgxH100EightNic(), new PoolSpec(PoolSpec.DEFAULT_DRIVER, false));
    assertEquals(8, pool.devices().size());
    assertTrue(pool.devices().stream().allMatch(d -> d.device().kind() == DeviceKind.HCA));
    NodePool vm = PoolBuilder.build(TestMachines.vmWithVf("vm"), PoolSpec.joint());
    assertEquals(List.of("gpu-0"), vm.devices().stream().map(PublishedDevice::name).toList());
    // a VM's NCCL host bridge is no real root complex: no pcieRoot, no PCI address of the GPU
    assertNull(vm.devices().get(0).attributes().get(DraAttributes.PCIE_ROOT));
    assertNull(vm.devices().get(0).attributes().get(DraAttributes.PCI_BUS_ID));
  }

  @Test
  @DisplayName("an HCA without RDMA driver is published tainted, not dropped; taints halve a slice")
  void driverlessIsTainted() {
    Machine m = TestMachines.withoutRdmaDriver(TestMachines.twoSockets("n1"), "mlx5_1");
    NodePool pool = PoolBuilder.build(m, PoolSpec.joint());
    PublishedDevice hca =
        pool.devices().stream().filter(d -> d.name().startsWith("hca-")).findFirst().orElseThrow();
    assertEquals(List.of(Taint.unhealthy(PoolBuilder.NO_RDMA_DRIVER)), hca.taints());
    assertNull(hca.attributes().get(DraAttributes.IB_DEVICE));
    assertEquals(4, pool.devices().size());

    Machine many =
        TestMachines.machine(
            "big",
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(1, 0, 26),
            new Switch(1, 0, 26));
    assertEquals(List.of(128, 2), sizes(PoolBuilder.build(many, PoolSpec.joint())));
    Machine tainted = TestMachines.withoutRdmaDriver(many, "mlx5_0");
    assertEquals(List.of(64, 64, 2), sizes(PoolBuilder.build(tainted, PoolSpec.joint())));
    assertEquals(List.of(0), sizes(PoolBuilder.build(Machine.empty("e", "x"), PoolSpec.joint())));
  }

  private static List<Integer> sizes(NodePool pool) {
    return pool.slices().stream().map(List::size).toList();
  }

  @Test
  @DisplayName("an unhealthy GPU and an HCA whose port is down are tainted with the reason")
  void unhealthy() {
    Machine m = TestMachines.gpusOnRootPorts("n1");
    NodePool pool = PoolBuilder.build(m, PoolSpec.joint());
    assertEquals(
        List.of(List.of(), List.of(Taint.unhealthy(PoolBuilder.UNHEALTHY))),
        pool.devices().stream().map(PublishedDevice::taints).toList());
    NodePool vm = PoolBuilder.build(TestMachines.vmWithVf("vm"), PoolSpec.joint());
    assertTrue(vm.devices().get(0).taints().isEmpty());
  }

  @Test
  @DisplayName("limits: a value over 64 characters, a collision, a bad driver name: named errors")
  void limits() {
    Machine m = TestMachines.twoSockets("n1");
    Device gpu = m.gpus().get(0);
    Device longModel =
        new Device(
            gpu.id(),
            gpu.kind(),
            gpu.name(),
            gpu.address(),
            gpu.numaNode(),
            gpu.parentId(),
            gpu.vendorId(),
            gpu.deviceId(),
            "x".repeat(65),
            true,
            null);
    Machine bad =
        new Machine(
            "n1", "t", m.pcie(), m.devices().stream().map(d -> d == gpu ? longModel : d).toList());
    InvalidPoolException e =
        assertThrows(InvalidPoolException.class, () -> PoolBuilder.build(bad, PoolSpec.joint()));
    assertTrue(
        e.getMessage()
            .startsWith(
                "node n1: device gpu-0 (GPU-0) cannot be published: its attribute"
                    + " tandem.dev/product is 65 characters long"),
        e.getMessage());

    InvalidPoolException driver =
        assertThrows(InvalidPoolException.class, () -> new PoolSpec("Tandem_DEV", true));
    assertTrue(driver.getMessage().contains("'Tandem_DEV' is not a lowercase DNS subdomain"));

    InvalidPoolException attrs =
        assertThrows(
            InvalidPoolException.class,
            () ->
                new PublishedDevice(
                    "gpu-0",
                    gpu,
                    new TreeMap<>(
                        Map.of("tandem.dev/" + "a".repeat(33), AttributeValue.flag(true))),
                    List.of()));
    assertTrue(attrs.getMessage().contains("is not <DNS subdomain"), attrs.getMessage());

    Device nic = m.hcas().get(0);
    Device twin =
        new Device(
            "MLX5_0",
            nic.kind(),
            null,
            TestMachines.pci(0x7f, 0),
            0,
            nic.parentId(),
            nic.vendorId(),
            nic.deviceId(),
            null,
            true,
            HcaInfo.named("MLX5_0"));
    Machine clash =
        new Machine(
            "n1", "t", m.pcie(), Stream.concat(m.devices().stream(), Stream.of(twin)).toList());
    InvalidPoolException collision =
        assertThrows(InvalidPoolException.class, () -> PoolBuilder.build(clash, PoolSpec.joint()));
    assertTrue(
        collision.getMessage().startsWith("node n1 cannot publish its devices: devices "),
        collision.getMessage());
    assertTrue(collision.getMessage().contains("'mlx5-0'"), collision.getMessage());
  }

  private static Device gpu(
      String id, String name, PciAddress at, int numa, String parent, PciModel model) {
    return Device.gpu(id)
        .name(name)
        .address(at)
        .numaNode(numa)
        .parentId(parent)
        .vendorId(model.vendor())
        .deviceId(model.product())
        .model(model.name())
        .build();
  }

  private static Device hca(
      String id,
      String name,
      PciAddress at,
      int numa,
      String parent,
      PciModel model,
      HcaInfo info) {
    return Device.hca(id, info)
        .name(name)
        .address(at)
        .numaNode(numa)
        .parentId(parent)
        .vendorId(model.vendor())
        .deviceId(model.product())
        .model(model.name())
        .build();
  }
}
