package dev.tandem.topology.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.GraceTray;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A node whose HCAs share no PCIe host bridge with a GPU (a Grace tray without Data Direct) refuses
 * a {@code switch} pod with a reason that names that class of node and the alignment that fits;
 * other refusals read as before.
 */
class NumaOnlyRefusalTest {

  private static final AlignmentPolicy SWITCH = AlignmentPolicy.DEFAULT;

  /** The allocator's refusal and the one from group counts, which must be the same. */
  private static Infeasible refusal(Machine m, int gpus, int hcas, AlignmentPolicy policy) {
    LocalityIndex index = LocalityIndex.of(m);
    AllocationRequest r = new AllocationRequest(gpus, hcas, policy);
    Availability free = Availability.allFree(index, 1);
    Infeasible no = assertInstanceOf(Infeasible.class, new Allocator(index).allocate(r, free));
    assertEquals(no, Allocator.verdict(r, free.counts()).refusal(), "counts give the same refusal");
    return no;
  }

  @Test
  @DisplayName("GB200 with ConnectX-7, 1+1 switch: refused for good, naming the class and numa")
  void gb200SwitchPod() {
    Infeasible no = refusal(GraceTray.GB200_CX7.machine(), 1, 1, SWITCH);
    assertFalse(no.resolvable());
    assertEquals(Locality.NODE, no.bestAvailable());
    assertEquals(
        "1 GPU + 1 HCA need under one PCIe switch (PXB or better, tandem.dev/alignment=switch);"
            + " best on this node now is NODE. "
            + Refusals.NUMA_ONLY
            + ": tandem.dev/alignment=numa fits (on the pod, or as a node-class default)",
        no.reason());
  }

  @Test
  @DisplayName("GB200 with ConnectX-7, root-complex: the same class; numa places the pod")
  void gb200RootComplexAndNuma() {
    AlignmentPolicy rootComplex =
        new AlignmentPolicy(Alignment.ROOT_COMPLEX, AlignmentMode.REQUIRED);
    assertTrue(
        refusal(GraceTray.GB200_CX7.machine(), 2, 2, rootComplex)
            .reason()
            .contains(Refusals.NUMA_ONLY + ": tandem.dev/alignment=numa fits"));
    Machine m = GraceTray.GB200_CX7.machine();
    LocalityIndex index = LocalityIndex.of(m);
    Allocation a =
        assertInstanceOf(
            Allocation.class,
            new Allocator(index)
                .allocate(
                    new AllocationRequest(
                        1, 1, new AlignmentPolicy(Alignment.NUMA, AlignmentMode.REQUIRED)),
                    Availability.allFree(index, 1)));
    assertEquals(Locality.NODE, a.worst());
  }

  @Test
  @DisplayName("a node with a GPU and an HCA under one switch keeps the plain reason")
  void otherNodesUnchanged() {
    Infeasible no = refusal(RealMachines.xe8640(), 4, 4, SWITCH);
    assertFalse(no.reason().contains(Refusals.NUMA_ONLY), no.reason());
  }
}
