package dev.tandem.topology.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.Sketch;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.allocation.Infeasible.Shortfall;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AllocatorTest {

  private static final AlignmentPolicy SWITCH = AlignmentPolicy.DEFAULT;
  private static final AlignmentPolicy SWITCH_PREFERRED =
      new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.PREFERRED);
  private static final AlignmentPolicy NUMA =
      new AlignmentPolicy(Alignment.NUMA, AlignmentMode.REQUIRED);

  private static Allocation allocate(
      Machine m, int gpus, int hcas, AlignmentPolicy p, List<String> taken) {
    return assertInstanceOf(Allocation.class, result(m, gpus, hcas, p, taken, 1));
  }

  private static AllocationResult result(
      Machine m, int gpus, int hcas, AlignmentPolicy p, List<String> taken, int slots) {
    LocalityIndex index = LocalityIndex.of(m);
    return new Allocator(index)
        .allocate(
            new AllocationRequest(gpus, hcas, p),
            Availability.allFree(index, slots).without(taken));
  }

  @Test
  @DisplayName("XE8640, 1 GPU + 1 HCA: a whole switch that fits exactly, PIX; 6 of 8 devices left")
  void xe8640OnePair() {
    Allocation a = allocate(RealMachines.xe8640(), 1, 1, SWITCH, List.of());
    assertEquals(List.of("GPU-1"), a.gpuIds());
    assertEquals(List.of("mlx5_2"), a.hcaIds());
    assertEquals(Locality.PIX, a.worst());
    assertEquals(7, a.score(), "aligned (5..10), 4 to 7 devices left free: 7");
  }

  @Test
  @DisplayName("XE8640, 2 GPUs + 2 HCAs: two switches, each GPU with the HCA beside it")
  void xe8640TwoPairs() {
    Allocation a = allocate(RealMachines.xe8640(), 2, 2, SWITCH, List.of());
    assertEquals(List.of("GPU-1", "GPU-3"), a.gpuIds());
    assertEquals(List.of("mlx5_2", "mlx5_3"), a.hcaIds());
    assertEquals(Locality.PIX, a.worst());
  }

  @Test
  @DisplayName(
      "XE8640, 4 GPUs + 4 HCAs under switch/required: infeasible, the reason names NODE and no device (kube-scheduler counts equal reasons)")
  void xe8640FourPairsCannotAlign() {
    Infeasible no =
        assertInstanceOf(
            Infeasible.class, result(RealMachines.xe8640(), 4, 4, SWITCH, List.of(), 1));
    assertEquals(Shortfall.ALIGNMENT, no.shortfall());
    assertTrue(
        !no.resolvable(),
        "even an empty XE8640 cannot put 4 pairs under switches: preemption cannot help");
    Infeasible busy =
        assertInstanceOf(
            Infeasible.class,
            result(RealMachines.xe8640(), 2, 2, SWITCH, List.of("GPU-1", "mlx5_3"), 1));
    assertEquals(Shortfall.ALIGNMENT, busy.shortfall());
    assertTrue(busy.resolvable(), "2 pairs fit the empty node, so preemption may help");
    assertEquals(Locality.NODE, no.bestAvailable());
    assertEquals(
        "4 GPUs + 4 HCAs need under one PCIe switch (PXB or better, tandem.dev/alignment=switch); "
            + "best on this node now is NODE",
        no.reason());
  }

  @Test
  @DisplayName("preferred mode never refuses for alignment: XE8640 4+4 is placed at NODE")
  void preferredPlacesAnyway() {
    Allocation a = allocate(RealMachines.xe8640(), 4, 4, SWITCH_PREFERRED, List.of());
    assertEquals(Locality.NODE, a.worst());
    assertEquals(4, a.gpus().size());
    assertEquals(4, a.hcas().size());
  }

  @Test
  @DisplayName("more GPUs than HCAs: Relion's two P100 share the ConnectX-5 on their switch")
  void moreGpusThanHcas() {
    Allocation a = allocate(RealMachines.relion(), 2, 1, SWITCH, List.of());
    assertEquals(List.of("GPU-0", "GPU-1"), a.gpuIds());
    assertEquals(List.of("mlx5_0"), a.hcaIds());
    assertEquals(Locality.PIX, a.worst());
  }

  @Test
  @DisplayName(
      "more HCAs than GPUs: XE8640's cuda0 takes both ports of the dual-port HCA beside it")
  void moreHcasThanGpus() {
    Allocation a = allocate(RealMachines.xe8640(), 1, 2, SWITCH, List.of());
    assertEquals(List.of("GPU-0"), a.gpuIds());
    assertEquals(List.of("mlx5_0", "mlx5_1"), a.hcaIds());
    assertEquals(Locality.PIX, a.worst());
  }

  @Test
  @DisplayName("GPUs only: the smallest group that holds them all, no pairing")
  void gpusOnly() {
    Allocation a = allocate(RealMachines.hgxH100EightNic(), 2, 0, SWITCH, List.of());
    assertEquals(List.of("GPU-0", "GPU-1"), a.gpuIds());
    assertEquals(List.of(), a.hcaIds());
    assertEquals(Locality.NODE, a.worst());
  }

  @Test
  @DisplayName("HCAs only: two ports of one switch beat two switches")
  void hcasOnly() {
    Allocation a = allocate(RealMachines.xe8640(), 0, 2, SWITCH, List.of());
    assertEquals(List.of("mlx5_0", "mlx5_1"), a.hcaIds());
    assertEquals(Locality.PIX, a.worst());
  }

  @Test
  @DisplayName("shared mode: slots of the nearest HCA, distinct HCAs first")
  void sharedSlots() {
    Allocation a =
        assertInstanceOf(
            Allocation.class, result(RealMachines.relion(), 1, 3, SWITCH, List.of(), 4));
    assertEquals(List.of("mlx5_0", "mlx5_0", "mlx5_0"), a.hcaIds());
    Allocation two =
        assertInstanceOf(
            Allocation.class, result(RealMachines.xe8640(), 1, 3, SWITCH, List.of(), 2));
    assertEquals(List.of("mlx5_0", "mlx5_0", "mlx5_1"), two.hcaIds());
  }

  @Test
  @DisplayName(
      "time-sliced GPUs: replicas of the GPUs beside the HCA, distinct GPUs first, more replicas"
          + " than GPUs when one switch holds them")
  void timeSlicedReplicas() {
    Machine m = RealMachines.relion();
    LocalityIndex index = LocalityIndex.of(m);
    Availability four = Availability.allFree(index, d -> d.kind() == DeviceKind.GPU ? 4 : 1);
    Allocation a =
        assertInstanceOf(
            Allocation.class,
            new Allocator(index).allocate(new AllocationRequest(3, 1, SWITCH), four));
    assertEquals(List.of("GPU-0", "GPU-0", "GPU-1"), a.gpuIds());
    assertEquals(Locality.PIX, a.worst());
    Availability one = Availability.allFree(index, 1);
    assertInstanceOf(
        Infeasible.class, new Allocator(index).allocate(new AllocationRequest(3, 1, SWITCH), one));
  }

  @Test
  @DisplayName("a device with 0 units (a PF whose VFs are offered) is never chosen")
  void zeroUnitsNeverChosen() {
    Machine m = RealMachines.xe8640();
    LocalityIndex index = LocalityIndex.of(m);
    Availability noPf = Availability.allFree(index, d -> d.id().equals("mlx5_2") ? 0 : 1);
    Allocation a =
        assertInstanceOf(
            Allocation.class,
            new Allocator(index).allocate(new AllocationRequest(1, 1, SWITCH), noPf));
    assertTrue(!a.hcaIds().contains("mlx5_2"), a.hcaIds().toString());
    assertEquals(Locality.PIX, a.worst());
  }

  @Test
  @DisplayName("best fit: a partly used switch is filled before a whole one is broken")
  void partlyUsedSwitchFirst() {
    Machine m = TestMachines.sixteenBySixteen();
    Allocation a = allocate(m, 1, 1, SWITCH, List.of("GPU-09", "mlx5_9"));
    assertEquals(List.of("GPU-08"), a.gpuIds());
    assertEquals(List.of("mlx5_8"), a.hcaIds());
    assertEquals(5, a.score(), "aligned, 28 devices left free");
    Allocation whole = allocate(m, 2, 2, SWITCH, List.of("GPU-09", "mlx5_9"));
    assertEquals(List.of("GPU-00", "GPU-01"), whole.gpuIds());
    assertEquals(Locality.PIX, whole.worst());
  }

  @Test
  @DisplayName("8 GPUs + 8 HCAs on a 16x16 node: one socket's four switches, PIX pairs")
  void eightPairs() {
    Allocation a = allocate(TestMachines.sixteenBySixteen(), 8, 8, SWITCH, List.of());
    assertEquals(Locality.PIX, a.worst());
    assertTrue(
        a.gpuIds().stream().allMatch(id -> id.compareTo("GPU-08") < 0), a.gpuIds().toString());
  }

  @Test
  @DisplayName(
      "when not every pair fits under a switch, HCAs still go beside the GPUs that have one")
  void hcasFollowGpus() {
    // GPUs 2 and 3 held (the kubelet chose them): GPU-3 has mlx5_3 on its switch, GPU-2 has none
    Allocation a =
        allocate(
            RealMachines.xe8640(),
            2,
            2,
            AlignmentPolicy.fromAnnotations(
                Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, "none"), SWITCH),
            List.of("GPU-0", "GPU-1"));
    assertEquals(List.of("GPU-2", "GPU-3"), a.gpuIds());
    assertTrue(a.hcaIds().contains("mlx5_3"), a.hcaIds().toString());
  }

  @Test
  @DisplayName("numa alignment accepts NODE pairs that switch alignment refuses")
  void numaAlignment() {
    Allocation a = allocate(RealMachines.xe8640(), 4, 4, NUMA, List.of());
    assertEquals(Locality.NODE, a.worst());
  }

  @Test
  @DisplayName("shortages are reported with counts; a node without HCAs is unresolvable")
  void shortages() {
    Infeasible gpus =
        assertInstanceOf(
            Infeasible.class, result(RealMachines.relion(), 3, 1, SWITCH, List.of(), 1));
    assertEquals(Shortfall.NOT_ENOUGH_GPUS, gpus.shortfall());
    assertEquals("node has 2 free healthy GPUs, pod needs 3", gpus.reason());
    assertTrue(!gpus.resolvable(), "the node has 2 GPUs in all: preemption cannot give 3");
    Infeasible hcas =
        assertInstanceOf(
            Infeasible.class, result(RealMachines.relion(), 1, 1, SWITCH, List.of("mlx5_0"), 1));
    assertEquals(Shortfall.NOT_ENOUGH_HCAS, hcas.shortfall());
    assertTrue(hcas.resolvable(), "the HCA is only taken: preemption may free it");
    Sketch sketch = new Sketch("no-hca");
    sketch.switchWith(sketch.domain("numa:0", 0), 0, "GPU-0");
    Machine gpusOnly = sketch.build();
    Infeasible none =
        assertInstanceOf(Infeasible.class, result(gpusOnly, 1, 1, SWITCH, List.of(), 1));
    assertEquals(Shortfall.NO_HCAS, none.shortfall());
    assertTrue(!none.resolvable());
  }

  @Test
  @DisplayName("unhealthy devices are never chosen")
  void unhealthyExcluded() {
    Machine m = RealMachines.xe8640();
    Machine sick =
        new Machine(
            m.nodeName(),
            m.source(),
            m.pcie(),
            m.devices().stream()
                .map(d -> d.id().equals("mlx5_2") ? d.withHealthy(false) : d)
                .toList());
    Allocation a = allocate(sick, 1, 1, SWITCH, List.of());
    assertEquals(List.of("GPU-3"), a.gpuIds());
    assertEquals(List.of("mlx5_3"), a.hcaIds());
  }

  @Test
  @DisplayName("deterministic: the same input gives the same answer")
  void deterministic() {
    Machine m = RealMachines.dgxA100();
    Allocation first = allocate(m, 3, 2, SWITCH, List.of("GPU-4"));
    for (int i = 0; i < 5; i++) {
      assertEquals(first, allocate(RealMachines.dgxA100(), 3, 2, SWITCH, List.of("GPU-4")));
    }
  }

  @Test
  @DisplayName("the score prefers the node the pod fills most: a fuller node, then a smaller one")
  void scoreByNodeFit() {
    Machine big = TestMachines.sixteenBySixteen();
    assertEquals(5, allocate(big, 1, 1, SWITCH, List.of()).score(), "30 devices left");
    List<String> allButOneSwitch = new ArrayList<>();
    for (int i = 2; i < 16; i++) {
      allButOneSwitch.add(String.format("GPU-%02d", i));
      allButOneSwitch.add("mlx5_" + i);
    }
    assertEquals(
        8,
        allocate(big, 1, 1, SWITCH, allButOneSwitch).score(),
        "one switch free: a GPU and an HCA left");
    assertEquals(
        10, allocate(big, 2, 2, SWITCH, allButOneSwitch).score(), "the node's last devices");
    assertEquals(
        6, allocate(RealMachines.hgxH100EightNic(), 1, 1, SWITCH, List.of()).score(), "14 left");
    assertEquals(7, allocate(RealMachines.xe8640(), 1, 1, SWITCH, List.of()).score(), "6 left");
  }

  @Test
  @DisplayName("a preferred pod: a node that meets its alignment outscores any that does not")
  void scoreBelowAlignment() {
    // XE8640 without GPU-1 and GPU-3: GPU-2's switch has no HCA, the nearest is NODE away
    Allocation spread =
        allocate(RealMachines.xe8640(), 2, 2, SWITCH_PREFERRED, List.of("GPU-1", "GPU-3"));
    assertEquals(Locality.NODE, spread.worst());
    assertEquals(1, spread.score());
    Allocation aligned =
        allocate(TestMachines.sixteenBySixteen(), 2, 2, SWITCH_PREFERRED, List.of());
    assertTrue(aligned.score() >= PlacementScore.ALIGNED, "aligned: " + aligned.score());
  }
}
