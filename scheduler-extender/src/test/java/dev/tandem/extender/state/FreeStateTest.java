package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "free states: nodes of one model with the same free devices share one, a change moves a node")
class FreeStateTest {

  private static final AllocationRequest TWO_PAIRS =
      new AllocationRequest(2, 2, AlignmentPolicy.DEFAULT);

  private final ClusterParts cluster =
      ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null);
  private final ClusterState state = cluster.state();

  FreeStateTest() {
    for (String name : List.of("a", "b")) {
      state.putTopology(machine(name), 1, List.of());
    }
  }

  /** Two switches of 2 GPUs ({@code GPU-<node>-0..3}) and 2 HCAs ({@code mlx5_0..3}) each. */
  private static Machine machine(String name) {
    return TestMachines.machine(name, new Switch(0, 2, 2), new Switch(1, 2, 2));
  }

  private NodeCell cell(String name) {
    return CandidateNodes.of(state.directory(), List.of(name)).cell(0);
  }

  private static ReportedAllocation gpus(String uid, String... ids) {
    return new ReportedAllocation("ml", "p-" + uid, uid, "main", ResourceNames.GPU, List.of(ids));
  }

  /** The allocator's own answer at the node's current entry, choosing devices. */
  private Verdict allocators(String node, AllocationRequest request) {
    NodeEntry e = state.node(node);
    return Verdict.of(e.allocator().allocate(request, e.free()));
  }

  @Test
  @DisplayName("two idle nodes of one model are in one state, though their GPU ids differ")
  void idleNodesShare() {
    assertNotNull(cell("a").state());
    assertSame(cell("a").state(), cell("b").state());
  }

  @Test
  @DisplayName("a bind moves the node to another state; its release brings it back")
  void bindMoves() {
    FreeState idle = cell("a").state();
    cluster
        .assumptions()
        .assume("a", new PodRef("ml", "p", "u1"), TWO_PAIRS, Duration.ofMinutes(1));
    assertNotSame(idle, cell("a").state());
    assertNotEquals(idle.counts(), cell("a").state().counts());
    assertSame(idle, cell("b").state(), "the other node stays where it was");
    cluster.assumptions().release("u1");
    assertSame(idle, cell("a").state());
  }

  @Test
  @DisplayName("different GPUs taken, as many per switch: one state (the verdict reads counts)")
  void sameCountsShare() {
    state.putTopology(machine("a"), 1, List.of(gpus("u1", "GPU-a-0")));
    state.putTopology(machine("b"), 1, List.of(gpus("u2", "GPU-b-3")));
    assertSame(cell("a").state(), cell("b").state(), "one GPU gone from one of two like switches");
    state.putTopology(machine("b"), 1, List.of(gpus("u2", "GPU-b-2", "GPU-b-3")));
    assertNotSame(cell("a").state(), cell("b").state(), "one switch lost both its GPUs");
  }

  @Test
  @DisplayName("a verdict kept on one state is never the answer of another")
  void verdictsStayWithTheirState() {
    FreeState idle = cell("a").state();
    Verdict fits = idle.verdict(TWO_PAIRS);
    assertTrue(fits.feasible());
    assertSame(fits, cell("b").state().verdict(TWO_PAIRS), "kept: decided once for both nodes");
    state.putTopology(machine("a"), 1, List.of(gpus("u1", "GPU-a-0", "GPU-a-2")));
    Verdict now = cell("a").state().verdict(TWO_PAIRS);
    assertEquals(allocators("a", TWO_PAIRS), now);
    assertNotEquals(fits, now, "fewer devices left free, another score");
    assertSame(fits, cell("b").state().verdict(TWO_PAIRS));
  }

  @Test
  @DisplayName("a request instance not seen before is decided anew, even if equal to a kept one")
  void requestsByIdentity() {
    FreeState idle = cell("a").state();
    Verdict first = idle.verdict(TWO_PAIRS);
    Verdict again = idle.verdict(new AllocationRequest(2, 2, AlignmentPolicy.DEFAULT));
    assertEquals(first, again);
    assertNotSame(first, again);
  }

  @Test
  @DisplayName("nodes whose HCAs have shared slots have no state: the allocator decides for them")
  void sharedSlotsHaveNone() {
    state.putTopology(machine("c"), 4, List.of());
    assertNull(cell("c").state());
    assertNotNull(cell("c").entry());
  }

  @Test
  @DisplayName("a node that goes leaves its state; its cell has none")
  void goneNodeHasNone() {
    NodeCell a = cell("a");
    state.removeTopology("a");
    assertNull(a.state());
    assertNull(a.entry());
  }
}
