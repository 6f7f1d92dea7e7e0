package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.state.GangRailBook.MemberRails;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("a gang split across rail sets: the set most members are on, and who breaks it")
class GangRailSplitTest {

  private static MemberRails member(String name, String node, Integer... rails) {
    SortedSet<Integer> set = new TreeSet<>(List.of(rails));
    return new MemberRails(new PodRef("ml", name, "uid-" + name), node, set);
  }

  @Test
  @DisplayName("members on one set (or none railed): no split")
  void oneSet() {
    assertTrue(GangRailSplit.of("ml/job-a", List.of()).isEmpty());
    assertTrue(
        GangRailSplit.of("ml/job-a", List.of(member("w-0", "n1", 4, 5), member("w-1", "n2", 4, 5)))
            .isEmpty());
  }

  @Test
  @DisplayName("the member off the set most members are on, named with both sets and the nodes")
  void majority() {
    MemberRails off = member("w-3", "n7", 0, 1, 2, 3);
    GangRailSplit split =
        GangRailSplit.of(
                "ml/job-a",
                List.of(off, member("w-1", "n2", 4, 5, 6, 7), member("w-0", "n1", 4, 5, 6, 7)))
            .orElseThrow();
    assertEquals(List.of(4, 5, 6, 7), List.copyOf(split.rails()));
    assertEquals(List.of(off), split.off());
    assertEquals(
        "gang ml/job-a: member ml/w-3 on node n7 uses rails [0, 1, 2, 3]; the gang is on"
            + " [4, 5, 6, 7] (2 of 3 members, on nodes n1, n2)",
        split.message(off));
  }

  @Test
  @DisplayName("a tie: the gang is on its first member's set, the later member breaks it")
  void tie() {
    MemberRails first = member("w-0", "n1", 4, 5);
    MemberRails later = member("w-1", "n2", 0, 1);
    GangRailSplit split = GangRailSplit.of("ml/job", List.of(first, later)).orElseThrow();
    assertEquals(List.of(4, 5), List.copyOf(split.rails()));
    assertEquals(List.of(later), split.off());
  }
}
