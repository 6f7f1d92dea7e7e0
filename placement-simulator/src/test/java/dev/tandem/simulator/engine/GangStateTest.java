package dev.tandem.simulator.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GangStateTest {

  private static SortedSet<Integer> rails(int... r) {
    return IntStream.of(r).boxed().collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  @DisplayName("the gang's rails: the set most running members are on, ties fewest then lowest")
  void mostMembers() {
    GangState g = new GangState();
    g.started("a", 1, rails(0, 1));
    g.started("a", 2, rails(2, 3));
    assertEquals(Optional.of(rails(0, 1)), g.rails("a"));
    g.started("a", 3, rails(2, 3));
    assertEquals(Optional.of(rails(2, 3)), g.rails("a"));
    g.started("b", 4, rails(4, 5));
    g.started("b", 5, rails(7));
    assertEquals(Optional.of(rails(7)), g.rails("b"));
    // {first member's rails, second member's rails, the gang's rails}
    int[][][] ties = {
      {{0, 1, 2}, {5, 6}, {5, 6}}, {{5, 6}, {0, 1, 2}, {5, 6}}, {{3}, {1}, {1}}, {{1}, {3}, {1}}
    };
    for (int[][] tie : ties) {
      GangState t = new GangState();
      t.started("c", 1, rails(tie[0]));
      t.started("c", 2, rails(tie[1]));
      assertEquals(Optional.of(rails(tie[2])), t.rails("c"));
    }
  }

  @Test
  @DisplayName("a gang whose members have all ended has no rails")
  void released() {
    GangState g = new GangState();
    g.started("a", 1, rails(0, 1));
    g.ended("a", 1);
    assertEquals(Optional.empty(), g.rails("a"));
  }
}
