package dev.tandem.discovery.hwloc;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The closest-pair view of a machine, as the fixture tests compare it. */
final class Fixtures {

  private Fixtures() {}

  /** A GPU's label: its OS-device name when hwloc gave one, else its PCI address. */
  static String label(Device gpu) {
    return gpu.name() != null && !gpu.name().startsWith("card")
        ? gpu.name()
        : gpu.address().toString();
  }

  /**
   * For each GPU, its nearest HCAs and their locality, one line each, sorted by label: {@code cuda0
   * -> mlx5_0,mlx5_1 PIX}; {@code -> none} when the machine has no HCA.
   */
  static List<String> closest(Machine m) {
    LocalityIndex index = LocalityIndex.of(m);
    TreeMap<String, String> out = new TreeMap<>();
    for (Device g : m.gpus()) {
      Locality best = null;
      List<String> nearest = new ArrayList<>();
      for (Device h : m.hcas()) {
        Locality l = index.locality(g.id(), h.id());
        if (best == null || l.compareTo(best) < 0) {
          best = l;
          nearest.clear();
        }
        if (l == best) {
          nearest.add(h.id());
        }
      }
      out.put(label(g), best == null ? "none" : String.join(",", nearest) + " " + best);
    }
    List<String> lines = new ArrayList<>();
    out.forEach((k, v) -> lines.add(k + " -> " + v));
    return lines;
  }
}
