package dev.tandem.discovery.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryOptions;
import dev.tandem.discovery.TopologySources;
import dev.tandem.discovery.sysfs.SysfsReader;
import dev.tandem.fixtures.GraceTray;
import dev.tandem.fixtures.GraceTrayNcclTopo;
import dev.tandem.fixtures.Topologies;
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
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grace trays' NCCL topology files ({@link GraceTrayNcclTopo}) read by the NCCL reader pair
 * each GPU with the same NICs as the tray's sysfs tree read by the sysfs reader. NCCL names a NIC
 * it reaches through Data Direct {@code <ibverbs name>_dma} (NVIDIA/nccl {@code
 * src/transport/net_ib/init.cc}): the file ties the function to its NIC by that name only.
 */
@DisplayName("NCCL files of the Grace trays pair GPUs and NICs as their sysfs trees do")
class GraceNcclTopoTest {

  private static final String DMA = "_dma";

  @TempDir Path root;

  @Test
  @DisplayName("GB300 with Data Direct: each GPU's PIX NIC is mlx5_N_dma of its switch")
  void gb300() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    Discovery nccl = read(tray);

    assertEquals(pairs(sysfs(tray), n -> n + DMA), pairs(nccl.machine(), n -> n), notes(nccl));
    assertEquals(
        Map.of(
            PciAddress.parse("0008:06:00.0"), "mlx5_1_dma PIX",
            PciAddress.parse("0009:06:00.0"), "mlx5_0_dma PIX",
            PciAddress.parse("0018:06:00.0"), "mlx5_3_dma PIX",
            PciAddress.parse("0019:06:00.0"), "mlx5_2_dma PIX"),
        pairs(nccl.machine(), n -> n));
    Device rail0 = nccl.machine().device("mlx5_0_dma").orElseThrow();
    assertEquals(tray.dataDirect().get("mlx5_0"), rail0.address(), "at its Data Direct function");
    assertTrue(notes(nccl).lines().noneMatch(n -> n.contains("align by CPU NUMA node")));
    assertTrue(allocate(nccl.machine()) instanceof Allocation a && a.worst() == Locality.PIX);
  }

  @Test
  @DisplayName("GB300 file read on the tray: a Data Direct function has no ibverbs name; a note")
  void gb300OnTheTray() throws IOException {
    GraceTray tray = GraceTray.GB300_CX8;
    tray.write(root);
    Path file = Topologies.path("nccl-topo/" + GraceTrayNcclTopo.fileName(tray));

    Discovery d = new NcclTopoSource(tray.nodeName(), file, root).discover();

    Device rail0 =
        d.machine().device("0009:03:00.0").orElseThrow(() -> new AssertionError(notes(d)));
    assertEquals(null, rail0.hca().ibDevice(), notes(d));
    assertTrue(
        d.notes()
            .contains(
                "nccl: "
                    + file
                    + " names [mlx5_0_dma] at PCI 0009:03:00.0: NCCL's name for a NIC reached"
                    + " through its Data Direct function; the function has no ibverbs device, so"
                    + " it is published by its bus id, without a name. On a node with Data Direct"
                    + " read sysfs (live discovery), which places each NIC by its function under"
                    + " its own name"),
        notes(d));
    assertEquals(
        "0009:03:00.0 PIX",
        pairs(d.machine(), n -> n).get(PciAddress.parse("0009:06:00.0")),
        "still its GPU's switch neighbour");
  }

  @Test
  @DisplayName("GB200 with ConnectX-7: NODE to the NICs of the GPU's NUMA node, the NUMA-only note")
  void gb200() throws IOException {
    GraceTray tray = GraceTray.GB200_CX7;
    Discovery nccl = read(tray);

    Map<PciAddress, String> pairs = pairs(nccl.machine(), n -> n);
    assertEquals(pairs(sysfs(tray), n -> n), pairs, notes(nccl));
    assertEquals("mlx5_0,mlx5_1,mlx5_2,mlx5_3 NODE", pairs.get(PciAddress.parse("0008:06:00.0")));
    assertNumaOnly(nccl);
    assertTrue(allocate(nccl.machine()) instanceof Infeasible, "switch policy on a GB200");
  }

  @Test
  @DisplayName("Azure ND GB300 v6: NODE to the VFs of the GPU's NUMA node, the NUMA-only note")
  void azureVm() throws IOException {
    GraceTray tray = GraceTray.AZURE_GB300;
    Discovery nccl = read(tray);

    Map<PciAddress, String> pairs = pairs(nccl.machine(), n -> n);
    assertEquals(pairs(sysfs(tray), n -> n), pairs, notes(nccl));
    assertEquals("mlx5_2,mlx5_3 NODE", pairs.get(PciAddress.parse("0019:06:00.0")));
    assertNumaOnly(nccl);
  }

  private static Discovery read(GraceTray tray) {
    Path file = Topologies.path("nccl-topo/" + GraceTrayNcclTopo.fileName(tray));
    return TopologySources.discoverOnce(DiscoveryOptions.ncclTopo(tray.nodeName(), file));
  }

  private Machine sysfs(GraceTray tray) throws IOException {
    tray.write(root);
    DataDirectTies ties = DataDirectTies.of(tray.dataDirect());
    return SysfsReader.read(root, tray.nodeName(), List.of(), ties).machine();
  }

  /**
   * Each GPU's nearest NICs (as {@code name} maps their ids) and their locality, by GPU address.
   */
  private static Map<PciAddress, String> pairs(Machine m, UnaryOperator<String> name) {
    LocalityIndex index = LocalityIndex.of(m);
    Map<PciAddress, String> out = new TreeMap<>();
    for (Device g : m.gpus()) {
      Locality best =
          m.hcas().stream()
              .map(h -> index.locality(g.id(), h.id()))
              .min(Locality::compareTo)
              .orElseThrow();
      String nics =
          m.hcas().stream()
              .filter(h -> index.locality(g.id(), h.id()) == best)
              .map(h -> name.apply(h.id()))
              .sorted()
              .collect(Collectors.joining(","));
      out.put(g.address(), nics + " " + best);
    }
    return out;
  }

  private static AllocationResult allocate(Machine m) {
    LocalityIndex index = LocalityIndex.of(m);
    return new Allocator(index)
        .allocate(
            new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT), Availability.allFree(index, 1));
  }

  private static void assertNumaOnly(Discovery d) {
    assertTrue(
        d.notes()
            .contains(
                "nccl: no HCA shares a PCIe host bridge with a GPU and no Data Direct function"
                    + " places one by a GPU: GPU+HCA pods on this node align by CPU NUMA node only"
                    + " (alignment policy numa); the switch and host-bridge policies refuse them"),
        notes(d));
  }

  private static String notes(Discovery d) {
    return String.join("\n", d.notes());
  }
}
