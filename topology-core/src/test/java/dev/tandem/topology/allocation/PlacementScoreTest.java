package dev.tandem.topology.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.Alignment;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PlacementScoreTest {

  @Test
  @DisplayName(
      "aligned: 10 for the node's last devices, one point less per doubling of what is left")
  void fit() {
    int[] left = {0, 1, 2, 3, 4, 7, 8, 15, 16, 40};
    int[] score = {10, 9, 8, 8, 7, 7, 6, 6, 5, 5};
    for (int i = 0; i < left.length; i++) {
      assertEquals(
          score[i], PlacementScore.of(Locality.PIX, Alignment.SWITCH, left[i]), left[i] + " left");
    }
    assertEquals(
        PlacementScore.of(Locality.PIX, Alignment.SWITCH, 3),
        PlacementScore.of(Locality.PXB, Alignment.SWITCH, 3),
        "within the alignment, locality does not rank nodes; the node's fit does");
  }

  @Test
  @DisplayName("not aligned: 0..4 by locality, below every aligned choice however full")
  void belowAlignment() {
    assertEquals(2, PlacementScore.of(Locality.PHB, Alignment.SWITCH, 0));
    assertEquals(1, PlacementScore.of(Locality.NODE, Alignment.SWITCH, 0));
    assertEquals(0, PlacementScore.of(Locality.SYS, Alignment.ROOT_COMPLEX, 0));
    for (Locality l : Locality.values()) {
      if (!l.isWithin(Alignment.NUMA.worstAllowed())) {
        assertTrue(PlacementScore.of(l, Alignment.NUMA, 0) < PlacementScore.ALIGNED, l.name());
      }
    }
    assertEquals(5, PlacementScore.of(Locality.SYS, Alignment.NONE, 1000), "none: always aligned");
  }
}
