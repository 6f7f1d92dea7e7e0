package dev.tandem.simulator.optimum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.tandem.simulator.SmallClusters;
import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.engine.GangFigure;
import dev.tandem.simulator.workload.GangMember;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.rail.Rails;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CrossRailBoundTest {

  /** Two nodes of eight switches, one GPU and one HCA each, HCA k on rail k. */
  private static final Cluster TWO =
      SmallClusters.of(Rails.byPciOrder(SmallClusters.eightPairs("n")).machine(), 2);

  private static List<PodSpec> gang(int members, int n) {
    List<PodSpec> out = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      out.add(
          new PodSpec(
              i,
              0,
              n,
              n,
              AlignmentPolicy.DEFAULT,
              10,
              new GangMember("g", members, i, AlignmentMode.PREFERRED)));
    }
    return out;
  }

  @Test
  @DisplayName("two members of 4+4 on two nodes can share a rail set: the bound is 0")
  void roomForOneSet() {
    assertEquals(new GangFigure(1, 2, 1, 1, 1, 0, 0), CrossRailBound.of(TWO, gang(2, 4)));
  }

  @Test
  @DisplayName("three members of 4+4 on two nodes: one set holds two, so at least 2 of 3 pairs")
  void threeOnTwoNodes() {
    assertEquals(new GangFigure(1, 3, 1, 1, 3, 2, 1), CrossRailBound.of(TWO, gang(3, 4)));
  }

  @Test
  @DisplayName("members that cannot all start at once are counted as many as fit; none: no figure")
  void capacity() {
    assertEquals(new GangFigure(1, 2, 0, 1, 1, 0, 0), CrossRailBound.of(TWO, gang(3, 8)));
    assertNull(
        CrossRailBound.of(TWO, List.of(new PodSpec(0, 0, 1, 1, AlignmentPolicy.DEFAULT, 1))));
  }
}
