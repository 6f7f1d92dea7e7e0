package dev.tandem.discovery.sysfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.render.TopologyMatrix;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Grace trays read from sysfs: Data Direct placement, CPU-less NUMA nodes, NUMA-only pairing. */
@DisplayName("sysfs: Grace trays")
class GraceTraysTest {

  private static final String NO_LIBMLX5 = "libmlx5 lacks mlx5dv_get_data_direct_sysfs_path";

  @TempDir Path root;

  @Test
  @DisplayName("with Data Direct each NIC is its GPU's switch neighbour, its own address kept")
  void dataDirectPlacesEachNicByItsGpu() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    tray.write(root);

    Discovery d = read(DataDirectTies.of(tray.dataDirect()));

    Machine m = d.machine();
    LocalityIndex index = LocalityIndex.of(m);
    Map<String, String> gpuOfNic =
        Map.of(
            "mlx5_0", "0009:06:00.0",
            "mlx5_1", "0008:06:00.0",
            "mlx5_2", "0019:06:00.0",
            "mlx5_3", "0018:06:00.0");
    gpuOfNic.forEach(
        (nic, gpu) -> {
          String gpuId = tray.gpuUuid(PciAddress.parse(gpu));
          assertEquals(Locality.PIX, index.locality(gpuId, nic), nic + " with GPU " + gpu);
          for (Device other : m.gpus()) {
            if (!other.id().equals(gpuId)) {
              assertTrue(index.locality(other.id(), nic).compareTo(Locality.PIX) > 0, nic);
            }
          }
        });
    Device rail0 = m.device("mlx5_0").orElseThrow();
    assertEquals(PciAddress.parse("0000:03:00.0"), rail0.address(), "its own PCI address");
    assertEquals(PciAddress.parse("0009:03:00.0"), rail0.hca().dataDirect());
    assertEquals("pci:0009:02:00.0", rail0.parentId());
    assertEquals(0, rail0.numaNode());
    assertEquals(1, m.device("mlx5_3").orElseThrow().numaNode());
    assertEquals(List.of(0, 1), m.numaNodes(), "CPU-less GPU memory nodes are no domain");
    assertTrue(d.notes().stream().noneMatch(n -> n.contains("align by CPU NUMA node")), notes(d));
  }

  @Test
  @DisplayName("the matrix and the allocator pair each GPU with its Data Direct NIC; CX-7: refused")
  void matrixAndAllocator() throws IOException {
    GraceTray.GB300_CX8.write(root);
    Machine m = read(DataDirectTies.of(GraceTray.GB300_CX8.dataDirect())).machine();

    String pairs = TopologyMatrix.pairs(m);
    assertTrue(pairs.contains("GPU0 -> mlx5_1 (PIX)"), pairs);
    assertTrue(pairs.contains("GPU1 -> mlx5_0 (PIX)"), pairs);
    AllocationRequest oneAndOne = new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT);
    AllocationResult placed = allocate(m, oneAndOne);
    assertTrue(placed instanceof Allocation a && a.worst() == Locality.PIX, placed.toString());

    Path cx7 = root.resolve("cx7");
    GraceTray.GB200_CX7.write(cx7);
    Machine gb200 =
        SysfsReader.read(cx7, "gb200", List.of(), DataDirectTies.of(Map.of())).machine();
    assertTrue(allocate(gb200, oneAndOne) instanceof Infeasible, "switch policy on a GB200");
  }

  private static AllocationResult allocate(Machine m, AllocationRequest request) {
    LocalityIndex index = LocalityIndex.of(m);
    return new Allocator(index).allocate(request, Availability.allFree(index, 1));
  }

  @Test
  @DisplayName("without libmlx5's answer a Data Direct function is a note with the reason")
  void dataDirectWithoutTies() throws IOException {
    GraceTray.GB300_CX8.write(root);

    Discovery d = read(DataDirectTies.unavailable(NO_LIBMLX5));

    assertEquals(PciAddress.parse("0000:03:00.0"), d.machine().device("mlx5_0").get().address());
    assertNull(d.machine().device("mlx5_0").get().hca().dataDirect());
    assertTrue(
        d.notes()
            .contains(
                "sysfs: Data Direct function 0008:03:00.0 (15b3:2100) is tied to no NIC: "
                    + NO_LIBMLX5
                    + "; without it nothing an unprivileged reader sees ties the two (the kernel"
                    + " matches them by VUID: the function's PCI VPD, readable by root only, and"
                    + " the NIC's firmware). NICs stay at their own PCI address; GPU+HCA pods"
                    + " align by CPU NUMA node"),
        notes(d));
    assertNumaOnly(d);
  }

  @Test
  @DisplayName("GB200 with ConnectX-7: every GPU-NIC pair SYS or NODE, a note, pairs by NUMA")
  void gb200WithoutDataDirect() throws IOException {
    GraceTray tray = GraceTray.GB200_CX7;
    tray.write(root);

    Discovery d = read(DataDirectTies.of(Map.of()));

    Machine m = d.machine();
    LocalityIndex index = LocalityIndex.of(m);
    String gpu0 = tray.gpuUuid(PciAddress.parse("0008:06:00.0"));
    assertEquals(Locality.NODE, index.locality(gpu0, "mlx5_3"));
    assertEquals(Locality.SYS, index.locality(gpu0, "mlx5_5"));
    assertEquals(8, m.hcas().size());
    assertEquals(List.of(0, 1), m.numaNodes());
    assertNumaOnly(d);
  }

  @Test
  @DisplayName("Azure GB300 VM: NODE to the NICs of the GPU's NUMA node, SYS to the others")
  void azureVm() throws IOException {
    GraceTray tray = GraceTray.AZURE_GB300;
    tray.write(root);

    Discovery d = read(DataDirectTies.unavailable(NO_LIBMLX5));

    LocalityIndex index = LocalityIndex.of(d.machine());
    String gpu0 = tray.gpuUuid(PciAddress.parse("0008:06:00.0"));
    assertEquals(Locality.NODE, index.locality(gpu0, "mlx5_1"));
    assertEquals(Locality.SYS, index.locality(gpu0, "mlx5_2"));
    assertNumaOnly(d);
  }

  @Test
  @DisplayName("a GPU whose numa_node is a CPU-less node aligns by its CPU node, with a note")
  void gpuMemoryNodeIsNotTheGpusNode() throws IOException {
    GraceTray tray = GraceTray.GB200_CX7;
    tray.write(root);
    Path gpu = root.resolve("sys/bus/pci/devices/0018:06:00.0");
    Files.writeString(gpu.resolve("numa_node"), "18\n");
    Path other = root.resolve("sys/bus/pci/devices/0019:06:00.0");
    Files.writeString(other.resolve("numa_node"), "26\n");
    Files.writeString(other.resolve("local_cpulist"), "\n");

    Discovery d = read(DataDirectTies.of(Map.of()));

    Device g = d.machine().device(tray.gpuUuid(PciAddress.parse("0018:06:00.0"))).get();
    assertEquals(1, g.numaNode());
    assertTrue(
        d.notes()
            .contains(
                "sysfs: PCI 0018:06:00.0 names NUMA node 18, which has no CPUs (GPU memory or a"
                    + " memory expander), as its numa_node: its CPU node 1 (local_cpulist) is used"
                    + " for alignment"),
        notes(d));
    Device h = d.machine().device(tray.gpuUuid(PciAddress.parse("0019:06:00.0"))).get();
    assertEquals(1, h.numaNode(), "its host bridge's CPU node");
    assertTrue(
        d.notes().stream()
            .anyMatch(
                n ->
                    n.startsWith("sysfs: PCI 0019:06:00.0 names NUMA node 26")
                        && n.endsWith(
                            "no CPU node holds its local_cpulist; its host bridge's CPU node is used")),
        notes(d));
    assertEquals(List.of(0, 1), d.machine().numaNodes());
  }

  @Test
  @DisplayName("a tie to a function the tree lacks, two NICs claiming one: notes, no placement")
  void badTies() throws IOException {
    GraceTray.GB300_CX8.write(root);
    PciAddress shared = PciAddress.parse("0009:03:00.0");

    Discovery d =
        read(
            DataDirectTies.of(
                Map.of(
                    "mlx5_0", shared,
                    "mlx5_1", shared,
                    "mlx5_2", PciAddress.parse("0019:03:00.1"))));

    Machine m = d.machine();
    for (String nic : List.of("mlx5_0", "mlx5_1", "mlx5_2")) {
      assertNull(m.device(nic).get().hca().dataDirect(), nic);
    }
    assertTrue(
        d.notes()
            .contains(
                "sysfs: Data Direct function 0009:03:00.0 is claimed by mlx5_0 (PCI 0000:03:00.0)"
                    + " and mlx5_1 (PCI 0002:03:00.0), functions of different NICs: none of them is"
                    + " placed by it (each stays at its own PCI address)"),
        notes(d));
    assertTrue(
        d.notes()
            .contains(
                "sysfs: libmlx5 names 0019:03:00.1 the Data Direct function of mlx5_2 (PCI"
                    + " 0010:03:00.0), but this tree has no 15b3:2100 function there: placed at its"
                    + " own PCI address"),
        notes(d));
    assertTrue(
        d.notes().stream()
            .anyMatch(
                n ->
                    n.startsWith(
                        "sysfs: Data Direct function 0019:03:00.0 (15b3:2100) is tied to"
                            + " no NIC: no mlx5 device names it")),
        notes(d));
  }

  private Discovery read(DataDirectTies ties) {
    return SysfsReader.read(root, "grace", List.of(), ties);
  }

  private static void assertNumaOnly(Discovery d) {
    assertTrue(
        d.notes()
            .contains(
                "sysfs: no HCA shares a PCIe host bridge with a GPU and no Data Direct function"
                    + " places one by a GPU: GPU+HCA pods on this node align by CPU NUMA node only"
                    + " (alignment policy numa); the switch and host-bridge policies refuse them"),
        notes(d));
  }

  private static String notes(Discovery d) {
    return String.join("\n", d.notes());
  }
}
