package dev.tandem.simulator.optimum;

import dev.tandem.simulator.cluster.Cluster;
import dev.tandem.simulator.cluster.SimNode;
import dev.tandem.simulator.engine.GangFigure;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A lower bound of the cross-rail pairs of a trace's gangs (docs/placement.md, "Gangs and rails"):
 * for each gang, the fewest pairs of members with differing rail sets when all its members start at
 * once on the <b>empty</b> cluster, relaxed further so that members on different rail sets do not
 * compete for a node. A member gets rail set S exactly on a node when the node has its GPUs, an HCA
 * unit on every rail of S, and its HCA units from S's rails and the HCAs on no rail; a node holds
 * {@code cap(S)} such members at once. Letting each member pick any S up to the cluster's total
 * {@code cap(S)}, the most same-set pairs come from filling the largest totals first, which is an
 * upper bound of the same-set pairs of any real schedule; the pairs left are the bound. It ignores
 * the pods of the trace that are not in the gang, so it is 0 for every gang on a cluster with room;
 * it is a bound, not a schedule.
 */
public final class CrossRailBound {

  private CrossRailBound() {}

  /** The bound as a figure; null when the trace has no gang. */
  public static GangFigure of(Cluster cluster, List<PodSpec> trace) {
    Map<String, List<PodSpec>> gangs = new LinkedHashMap<>();
    for (PodSpec p : trace) {
      if (p.gang() != null) {
        gangs.computeIfAbsent(p.gang().name(), g -> new ArrayList<>()).add(p);
      }
    }
    if (gangs.isEmpty()) {
      return null;
    }
    Map<NodeRails, Integer> nodes = new HashMap<>();
    for (SimNode n : cluster.nodes()) {
      nodes.merge(NodeRails.of(n), 1, Integer::sum);
    }
    int started = 0;
    int whole = 0;
    int withPairs = 0;
    long pairs = 0;
    long cross = 0;
    int split = 0;
    for (List<PodSpec> members : gangs.values()) {
      List<PodSpec> shapes = distinctShapes(members);
      int placed = Math.min(members.size(), placeable(shapes, nodes));
      long most = mostSameSetPairs(shapes, nodes, placed);
      long all = (long) placed * (placed - 1) / 2;
      started += placed;
      whole += placed == members.get(0).gang().size() ? 1 : 0;
      withPairs += placed >= 2 ? 1 : 0;
      pairs += all;
      cross += all - most;
      split += all > most ? 1 : 0;
    }
    return new GangFigure(gangs.size(), started, whole, withPairs, pairs, cross, split);
  }

  private static List<PodSpec> distinctShapes(List<PodSpec> members) {
    Map<String, PodSpec> byShape = new LinkedHashMap<>();
    members.forEach(p -> byShape.putIfAbsent(p.shape(), p));
    return List.copyOf(byShape.values());
  }

  /** Members that fit at once on the empty cluster, counting each member's shape on its own. */
  private static int placeable(List<PodSpec> shapes, Map<NodeRails, Integer> nodes) {
    int most = 0;
    for (PodSpec shape : shapes) {
      int fit = 0;
      for (Map.Entry<NodeRails, Integer> n : nodes.entrySet()) {
        fit += n.getKey().fits(shape) * n.getValue();
      }
      most = Math.max(most, fit);
    }
    return most;
  }

  /** The most pairs on one rail set: each member on any set, largest totals filled first. */
  private static long mostSameSetPairs(
      List<PodSpec> shapes, Map<NodeRails, Integer> nodes, int members) {
    Map<Set<Integer>, Integer> totals = new HashMap<>();
    for (PodSpec shape : shapes) {
      Map<Set<Integer>, Integer> forShape = new HashMap<>();
      for (Map.Entry<NodeRails, Integer> n : nodes.entrySet()) {
        for (Set<Integer> s : n.getKey().railSets(shape.hcas())) {
          forShape.merge(s, n.getKey().cap(shape, s) * n.getValue(), Integer::sum);
        }
      }
      forShape.forEach((s, total) -> totals.merge(s, total, Math::max));
    }
    List<Integer> sizes = new ArrayList<>(totals.values());
    sizes.sort((a, b) -> b - a);
    long same = 0;
    int left = members;
    for (int size : sizes) {
      int n = Math.min(left, size);
      same += (long) n * (n - 1) / 2;
      left -= n;
    }
    return same;
  }

  /**
   * One node's GPUs and HCA units by rail.
   *
   * @param gpus healthy GPUs
   * @param byRail healthy HCA units on each rail
   * @param noRail healthy HCA units on no rail
   */
  private record NodeRails(int gpus, Map<Integer, Integer> byRail, int noRail) {

    static NodeRails of(SimNode node) {
      Map<Integer, Integer> byRail = new HashMap<>();
      int none = 0;
      for (Device d : node.index().devices()) {
        if (d.kind() == DeviceKind.HCA && d.healthy()) {
          if (d.hca().rail() == null) {
            none++;
          } else {
            byRail.merge(d.hca().rail(), 1, Integer::sum);
          }
        }
      }
      return new NodeRails(node.count(DeviceKind.GPU), byRail, none);
    }

    /** Members of this shape the empty node holds at once, whatever their rails. */
    int fits(PodSpec pod) {
      int hcas = noRail + byRail.values().stream().mapToInt(Integer::intValue).sum();
      int byGpus = pod.gpus() == 0 ? Integer.MAX_VALUE : gpus / pod.gpus();
      int byHcas = pod.hcas() == 0 ? Integer.MAX_VALUE : hcas / pod.hcas();
      int fit = Math.min(byGpus, byHcas);
      return fit == Integer.MAX_VALUE ? 0 : fit;
    }

    /** Every set of at most {@code hcas} of the node's rails (the empty set when no HCA). */
    List<Set<Integer>> railSets(int hcas) {
      List<Integer> rails = new ArrayList<>(new TreeSet<>(byRail.keySet()));
      List<Set<Integer>> out = new ArrayList<>();
      for (long mask = 0; mask < 1L << rails.size(); mask++) {
        if (Long.bitCount(mask) <= hcas) {
          Set<Integer> s = new TreeSet<>();
          for (int i = 0; i < rails.size(); i++) {
            if ((mask >> i & 1) == 1) {
              s.add(rails.get(i));
            }
          }
          out.add(s);
        }
      }
      return out;
    }

    /** Members of this shape with rail set exactly {@code s} the empty node holds at once. */
    int cap(PodSpec pod, Set<Integer> s) {
      int fit = fits(pod);
      if (pod.hcas() == 0) {
        return s.isEmpty() ? fit : 0;
      }
      if (s.isEmpty() && noRail == 0) {
        return 0;
      }
      int usable = noRail;
      for (int r : s) {
        fit = Math.min(fit, byRail.get(r));
        usable += byRail.get(r);
      }
      return Math.min(fit, usable / pod.hcas());
    }
  }
}
