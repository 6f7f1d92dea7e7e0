package dev.tandem.simulator.optimum;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every set of free devices on one node (one unit per HCA) that meets a pod's alignment: g GPUs and
 * h HCAs whose {@link LocalityIndex#pairing} is within the limit, the rule topology-core's
 * allocator enforces (docs/topology.md, rule 1). Exhaustive, for small nodes.
 */
final class AlignedSets {

  private AlignedSets() {}

  /**
   * Each set as device indexes of the node's {@link LocalityIndex}, one per class of
   * interchangeable sets: free devices of one kind under one switch ({@code PIX} group) share every
   * group above it, so they are at the same locality from every other device and swapping them
   * changes nothing a later pod can see. Sets taking the same number of each kind from each switch
   * are one class.
   */
  static List<int[]> of(LocalityIndex index, boolean[] used, int g, int h, Locality limit) {
    List<int[]> out = new ArrayList<>();
    Set<List<List<Integer>>> classes = new HashSet<>();
    for (int[] set : all(index, used, g, h, limit)) {
      List<List<Integer>> key = new ArrayList<>();
      for (int d : set) {
        key.add(groups(index, d));
      }
      key.sort(Comparator.comparing(List::toString));
      if (classes.add(key)) {
        out.add(set);
      }
    }
    return out;
  }

  /** A device's kind and its group at every level: devices alike in all are interchangeable. */
  private static List<Integer> groups(LocalityIndex index, int d) {
    List<Integer> out = new ArrayList<>();
    out.add(index.devices().get(d).kind().ordinal());
    for (Locality level : LocalityIndex.GROUPED_LEVELS) {
      out.add(index.group(level, d));
    }
    return out;
  }

  /** Every aligned set, without merging interchangeable ones. */
  static List<int[]> all(LocalityIndex index, boolean[] used, int g, int h, Locality limit) {
    List<Integer> gpus = new ArrayList<>();
    List<Integer> hcas = new ArrayList<>();
    for (int d = 0; d < used.length; d++) {
      if (!used[d] && index.devices().get(d).healthy()) {
        (index.devices().get(d).kind() == DeviceKind.GPU ? gpus : hcas).add(d);
      }
    }
    List<int[]> out = new ArrayList<>();
    for (int[] gs : combinations(gpus, g)) {
      for (int[] hs : combinations(hcas, h)) {
        if (index.pairing(gs, hs).isWithin(limit)) {
          int[] set = new int[g + h];
          System.arraycopy(gs, 0, set, 0, g);
          System.arraycopy(hs, 0, set, g, h);
          out.add(set);
        }
      }
    }
    return out;
  }

  static List<int[]> combinations(List<Integer> items, int k) {
    List<int[]> out = new ArrayList<>();
    if (k <= items.size()) {
      collect(items, k, 0, new int[k], 0, out);
    }
    return out;
  }

  private static void collect(
      List<Integer> items, int k, int from, int[] current, int depth, List<int[]> out) {
    if (depth == k) {
      out.add(current.clone());
      return;
    }
    for (int i = from; i <= items.size() - (k - depth); i++) {
      current[depth] = items.get(i);
      collect(items, k, i + 1, current, depth + 1, out);
    }
  }
}
