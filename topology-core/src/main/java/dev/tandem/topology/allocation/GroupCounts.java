package dev.tandem.topology.allocation;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import java.util.Arrays;

/**
 * Units of GPUs and HCAs per group at every locality level of one machine (PIX, PXB, PHB, NODE, and
 * SYS as one group), free and when nothing is taken: a summary from which the best locality a
 * request can get follows without choosing devices. It holds when every device has at most one
 * unit, so that any free device of a group serves as well as another; {@link #NONE} stands for a
 * machine where that is not so.
 *
 * <p>One flat array, read by every filter request for every node: {@code [first group of each
 * level..., end]}, then free GPUs per group, free HCAs, healthy GPUs, healthy HCAs.
 */
final class GroupCounts {

  /** The levels, in the allocator's order; SYS is one group holding every device. */
  static final int LEVELS = LocalityIndex.GROUPED_LEVELS.size() + 1;

  static final GroupCounts NONE = new GroupCounts(new int[0], 0);

  private static final int FREE_GPUS = 0;
  private static final int FREE_HCAS = 1;
  private static final int ALL_GPUS = 2;
  private static final int ALL_HCAS = 3;

  private final int[] units;

  /** Groups of all levels together: the length of each section. */
  private final int groups;

  private GroupCounts(int[] units, int groups) {
    this.units = units;
    this.groups = groups;
  }

  /** The summary of a machine's units; {@link #NONE} when some device has more than one. */
  static GroupCounts of(Availability free) {
    LocalityIndex index = free.index();
    int[] first = new int[LEVELS + 1];
    for (int level = 0; level < LEVELS; level++) {
      first[level + 1] = first[level] + groupCount(index, level);
    }
    int groups = first[LEVELS];
    int[] units = Arrays.copyOf(first, LEVELS + 1 + 4 * groups);
    for (int d = 0; d < index.devices().size(); d++) {
      if (free.capacity(d) > 1) {
        return NONE;
      }
      boolean gpu = index.devices().get(d).kind() == DeviceKind.GPU;
      for (int level = 0; level < LEVELS; level++) {
        int at = LEVELS + 1 + first[level] + group(index, level, d);
        units[at + groups * (gpu ? FREE_GPUS : FREE_HCAS)] += free.free(d);
        units[at + groups * (gpu ? ALL_GPUS : ALL_HCAS)] += free.capacity(d);
      }
    }
    return new GroupCounts(units, groups);
  }

  private static int groupCount(LocalityIndex index, int level) {
    return level < LEVELS - 1 ? index.groupCount(LocalityIndex.GROUPED_LEVELS.get(level)) : 1;
  }

  private static int group(LocalityIndex index, int level, int device) {
    return level < LEVELS - 1 ? index.group(LocalityIndex.GROUPED_LEVELS.get(level), device) : 0;
  }

  /** Free GPU units of the whole machine. */
  int gpus() {
    return units[section(FREE_GPUS) + groups - 1];
  }

  /** Free HCA units of the whole machine. */
  int hcas() {
    return units[section(FREE_HCAS) + groups - 1];
  }

  /** Healthy units of a kind, taken or not. */
  int healthy(DeviceKind kind) {
    return units[section(kind == DeviceKind.GPU ? ALL_GPUS : ALL_HCAS) + groups - 1];
  }

  private int section(int which) {
    return LEVELS + 1 + groups * which;
  }

  /**
   * The first level (an index into the allocator's levels) at which at most {@code maxSets} groups,
   * each with a unit of every kind requested, hold the request; -1 when none does.
   *
   * @param capacity count every healthy unit (as if nothing were taken), not only the free ones
   */
  int firstLevel(int needGpus, int needHcas, int maxSets, boolean capacity) {
    int g = section(capacity ? ALL_GPUS : FREE_GPUS);
    int h = section(capacity ? ALL_HCAS : FREE_HCAS);
    for (int level = 0; level < LEVELS; level++) {
      int from = units[level];
      int to = units[level + 1];
      if (oneGroupHolds(g, h, from, to, needGpus, needHcas)
          || (maxSets > 1 && someGroupsHold(g, h, from, to, needGpus, needHcas, maxSets))) {
        return level;
      }
    }
    return -1;
  }

  private boolean oneGroupHolds(int g, int h, int from, int to, int needGpus, int needHcas) {
    for (int i = from; i < to; i++) {
      if (units[g + i] >= needGpus && units[h + i] >= needHcas) {
        return true;
      }
    }
    return false;
  }

  /** Whether 2 to {@code maxSets} groups, each with a unit of both kinds, hold the request. */
  private boolean someGroupsHold(
      int g, int h, int from, int to, int needGpus, int needHcas, int maxSets) {
    int[] usableGpus = new int[to - from];
    int[] usableHcas = new int[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      if (units[g + i] > 0 && units[h + i] > 0) {
        usableGpus[n] = units[g + i];
        usableHcas[n++] = units[h + i];
      }
    }
    int k = Math.min(maxSets, n);
    if (k < 2 || largest(usableGpus, n, k) < needGpus || largest(usableHcas, n, k) < needHcas) {
      return false;
    }
    for (int size = 2; size <= k; size++) {
      int[] combo = Combinations.first(size);
      do {
        int sumG = 0;
        int sumH = 0;
        for (int i : combo) {
          sumG += usableGpus[i];
          sumH += usableHcas[i];
        }
        if (sumG >= needGpus && sumH >= needHcas) {
          return true;
        }
      } while (Combinations.next(combo, n));
    }
    return false;
  }

  /** The sum of the k largest of the first n values. */
  private static int largest(int[] values, int n, int k) {
    int[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    int sum = 0;
    for (int i = n - k; i < n; i++) {
      sum += sorted[i];
    }
    return sum;
  }
}
