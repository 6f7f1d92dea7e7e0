package dev.tandem.simulator.policy;

import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * NVIDIA's device plugin's preferred allocation for full GPUs: go-gpuallocator's best-effort policy
 * picks the set with the highest sum of pairwise GPU-GPU link scores
 * (gpuallocator/besteffort_policy.go, calculateGPUPairScore). Without NVLink data the PCIe part of
 * its table applies: same switch 50, several switches 40, host bridge 30, same CPU 20, across CPUs
 * 10. Ties go to the first set in GPU order. It knows nothing of HCAs.
 */
final class NvidiaPackedGpus {

  private NvidiaPackedGpus() {}

  static List<String> choose(Availability free, int count, Predicate<Device> where) {
    LocalityIndex index = free.index();
    List<Integer> candidates = new ArrayList<>();
    for (int d = 0; d < index.devices().size(); d++) {
      Device device = index.devices().get(d);
      if (device.kind() == DeviceKind.GPU && free.free(d) > 0 && where.test(device)) {
        candidates.add(d);
      }
    }
    if (candidates.size() < count) {
      return List.of();
    }
    int[] best = new int[count];
    int[] current = new int[count];
    long[] bestScore = {-1};
    search(index, candidates, 0, 0, 0, current, best, bestScore);
    List<String> out = new ArrayList<>(count);
    for (int d : best) {
      out.add(index.devices().get(d).id());
    }
    return out;
  }

  private static void search(
      LocalityIndex index,
      List<Integer> candidates,
      int from,
      int depth,
      long score,
      int[] current,
      int[] best,
      long[] bestScore) {
    if (depth == current.length) {
      if (score > bestScore[0]) {
        bestScore[0] = score;
        System.arraycopy(current, 0, best, 0, current.length);
      }
      return;
    }
    for (int i = from; i <= candidates.size() - (current.length - depth); i++) {
      int d = candidates.get(i);
      long added = 0;
      for (int k = 0; k < depth; k++) {
        added += pairScore(index.locality(current[k], d));
      }
      current[depth] = d;
      search(index, candidates, i + 1, depth + 1, score + added, current, best, bestScore);
    }
  }

  static int pairScore(Locality l) {
    return switch (l) {
      case X, PIX -> 50;
      case PXB -> 40;
      case PHB -> 30;
      case NODE -> 20;
      case SYS -> 10;
    };
  }
}
