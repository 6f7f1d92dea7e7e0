package dev.tandem.simulator.engine;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import java.util.List;

/**
 * Measures a placement as the node agent's audit does: the worst locality between a chosen device
 * and its nearest chosen partner of the other kind.
 */
public final class AlignmentMeter {

  private AlignmentMeter() {}

  /** {@link Locality#X} when only one kind was placed. */
  public static Locality worst(LocalityIndex index, List<String> gpus, List<String> hcas) {
    if (gpus.isEmpty() || hcas.isEmpty()) {
      return Locality.X;
    }
    Locality worst = Locality.X;
    worst = Locality.worse(worst, nearestWorst(index, gpus, hcas));
    return Locality.worse(worst, nearestWorst(index, hcas, gpus));
  }

  private static Locality nearestWorst(LocalityIndex index, List<String> from, List<String> to) {
    Locality worst = Locality.X;
    for (String a : from) {
      Locality nearest = Locality.SYS;
      for (String b : to) {
        Locality l = index.locality(a, b);
        nearest = l.compareTo(nearest) < 0 ? l : nearest;
      }
      worst = Locality.worse(worst, nearest);
    }
    return worst;
  }
}
