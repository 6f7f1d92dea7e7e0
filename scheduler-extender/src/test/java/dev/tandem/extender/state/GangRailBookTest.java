package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.fixtures.MovableClock;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "the gang rail book: the members' rails, the first member's choice, released when gone")
class GangRailBookTest {

  /** DGX A100, rails by PCI order: mlx5_0..mlx5_7 on rails 0-7, mlx5_8/9 on none. */
  private static final Machine DGX = Rails.byPciOrder(RealMachines.dgxA100("n1")).machine();

  private final MovableClock clock = new MovableClock(Instant.parse("2026-11-28T12:00:00Z"));
  private final ClusterState state = ClusterParts.empty(clock, RecentPods.none(), null).state();
  private final GangRailBook book = state.gangRails();

  @Test
  @DisplayName("the rails most members are on; a member's node read when asked; gone when all are")
  void membersRails() {
    book.placed("ml/job", new PodRef("ml", "a", "a"), "n1", List.of("mlx5_0", "mlx5_1"));
    assertEquals(Set.of(), book.memberRails("ml/job"), "n1's tree not seen yet");
    state.putTopology(DGX, 1, List.of());
    assertEquals(Set.of(0, 1), book.memberRails("ml/job"));
    book.placed("ml/job", new PodRef("ml", "b", "b"), "n1", List.of("mlx5_6", "mlx5_7"));
    assertEquals(Set.of(0, 1), book.memberRails("ml/job"), "a tie: the lowest rails");
    book.placed("ml/job", new PodRef("ml", "c", "c"), "n1", List.of("mlx5_7", "mlx5_6"));
    assertEquals(Set.of(6, 7), book.memberRails("ml/job"), "two members on 6-7");
    book.placed("ml/other", new PodRef("ml", "d", "d"), "n1", List.of("mlx5_8"));
    assertEquals(Set.of(), book.memberRails("ml/other"), "a storage NIC is on no rail");

    state.podGone("b");
    state.podGone("c");
    assertEquals(Set.of(0, 1), book.memberRails("ml/job"));
    book.chose("ml/job", "e", new TreeSet<>(Set.of(2, 3)));
    state.podGone("a");
    assertEquals(Map.of("ml/other", Set.of()), book.gangs(), "ml/job released");
    assertNull(book.choice("ml/job"), "its choice with it");
  }

  @Test
  @DisplayName("a choice no member was placed on is forgotten after its TTL")
  void choiceExpires() {
    book.chose("ml/job", "a", new TreeSet<>(Set.of(0, 1)));
    clock.advance(GangRailBook.CHOICE_TTL);
    assertEquals(Set.of(0, 1), book.choice("ml/job").rails());
    clock.advance(Duration.ofSeconds(1));
    assertNull(book.choice("ml/job"));
  }

  @Test
  @DisplayName(
      "gangs split now: members with railed plans on more than one set; a storage NIC or an unknown"
          + " node counts no set")
  void splitGangs() {
    state.putTopology(DGX, 1, List.of());
    book.placed("ml/job", new PodRef("ml", "a", "a"), "n1", List.of("mlx5_4", "mlx5_5"));
    book.placed("ml/job", new PodRef("ml", "b", "b"), "n1", List.of("mlx5_5", "mlx5_4"));
    book.placed("ml/job", new PodRef("ml", "c", "c"), "n1", List.of("mlx5_8"));
    book.placed("ml/job", new PodRef("ml", "d", "d"), "n9", List.of("mlx5_0"));
    assertEquals(0, book.splitGangs());
    assertEquals(
        List.of("a", "b"), book.railedMembers("ml/job").stream().map(m -> m.pod().uid()).toList());
    book.placed("ml/job", new PodRef("ml", "e", "e"), "n1", List.of("mlx5_0", "mlx5_1"));
    assertEquals(1, book.splitGangs());
    state.podGone("e");
    assertEquals(0, book.splitGangs());
  }
}
