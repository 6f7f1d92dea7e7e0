package dev.tandem.topology.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RailSetsTest {

  private static final Machine DGX = Rails.byPciOrder(RealMachines.dgxA100()).machine();

  @Test
  @DisplayName("a plan's rails: its HCAs' rails ascending; storage NICs and unknown ids add none")
  void railsOfAPlan() {
    assertEquals(
        List.of(2, 3),
        List.copyOf(RailSets.of(DGX, List.of("mlx5_3", "mlx5_2", "mlx5_8", "GPU-0", "mlx5_42"))));
    assertEquals(List.of(), List.copyOf(RailSets.of(DGX, List.of("mlx5_9"))));
  }

  @Test
  @DisplayName("the one allocator on a rail set: GPU+HCA pairs on those rails, refused beyond them")
  void allocatorOnRails() {
    LocalityIndex index = LocalityIndex.of(DGX);
    Allocator allocator = new Allocator(index);
    Availability onRails = RailSets.onRails(Availability.allFree(index, 1), Set.of(4, 5));
    Allocation a =
        assertInstanceOf(
            Allocation.class,
            allocator.allocate(new AllocationRequest(2, 2, AlignmentPolicy.DEFAULT), onRails));
    assertEquals(List.of("mlx5_4", "mlx5_5"), a.hcaIds());
    assertEquals(Set.of(4, 5), RailSets.of(DGX, a.hcaIds()));
    assertEquals(0, onRails.free("mlx5_8"), "a storage NIC is on no rail");
    assertEquals(8, onRails.freeUnits(DeviceKind.GPU), "GPUs untouched");
    assertFalse(
        allocator
            .allocate(new AllocationRequest(0, 3, AlignmentPolicy.DEFAULT), onRails)
            .feasible(),
        "two HCAs on rails 4 and 5, three asked");
  }
}
