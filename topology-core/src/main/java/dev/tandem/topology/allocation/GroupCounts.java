package dev.tandem.topology.allocation;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
import java.util.Arrays;

/**
 * Units of GPUs and HCAs per group at every locality level of one machine (PIX, PXB, PHB, NODE, and
 * SYS as one group), free and when nothing is taken, and whether the machine has a GPU and an HCA
 * at all: everything {@link Allocator#verdict(AllocationRequest, GroupCounts)} reads, a summary
 * from which the best locality a request can get follows without choosing devices. It holds when
 * every device has at most one unit, so that any free device of a group serves as well as another;
 * {@link #NONE} stands for a machine where that is not so.
 *
 * <p>Canonical: within a level the groups are in order of their counts, not of the machine, so two
 * nodes of one model with the same free devices, or with different devices free but the same number
 * per group, have equal counts, and {@link #equals equal counts get equal verdicts} for every
 * request, whatever node they come from. The scheduler extender decides once per distinct counts
 * instead of once per node.
 *
 * <p>One flat array, read by every filter request: {@code [first group of each level..., end]},
 * then free GPUs per group, free HCAs, healthy GPUs, healthy HCAs.
 */
public final class GroupCounts {

  /** The levels, in the allocator's order; SYS is one group holding every device. */
  static final int LEVELS = LocalityIndex.GROUPED_LEVELS.size() + 1;

  /** The counts of a machine where some device has more than one unit: none are kept. */
  public static final GroupCounts NONE = new GroupCounts(new int[0], 0, false, false);

  private static final int FREE_GPUS = 0;
  private static final int FREE_HCAS = 1;
  private static final int ALL_GPUS = 2;
  private static final int ALL_HCAS = 3;
  private static final int SECTIONS = 4;

  /** Bits per count when a group's four counts are packed into one long to be sorted. */
  private static final int BITS = 16;

  private final int[] units;

  /** Groups of all levels together: the length of each section. */
  private final int groups;

  private final boolean hasGpus;
  private final boolean hasHcas;
  private final int hash;

  private GroupCounts(int[] units, int groups, boolean hasGpus, boolean hasHcas) {
    this.units = units;
    this.groups = groups;
    this.hasGpus = hasGpus;
    this.hasHcas = hasHcas;
    this.hash = 31 * Arrays.hashCode(units) + (hasGpus ? 2 : 0) + (hasHcas ? 1 : 0);
  }

  /**
   * The summary of a machine's units, made anew: callers read {@link Availability#counts()}, which
   * makes it once per availability; {@link #NONE} when some device has more than one unit.
   */
  static GroupCounts of(Availability free) {
    LocalityIndex index = free.index();
    int[] first = new int[LEVELS + 1];
    for (int level = 0; level < LEVELS; level++) {
      first[level + 1] = first[level] + groupCount(index, level);
    }
    int groups = first[LEVELS];
    long[] packed = new long[groups];
    boolean hasGpus = false;
    boolean hasHcas = false;
    for (int d = 0; d < index.devices().size(); d++) {
      if (free.capacity(d) > 1) {
        return NONE;
      }
      boolean gpu = index.devices().get(d).kind() == DeviceKind.GPU;
      hasGpus |= gpu;
      hasHcas |= !gpu;
      long unit = pack(gpu ? FREE_GPUS : FREE_HCAS, free.free(d));
      unit |= pack(gpu ? ALL_GPUS : ALL_HCAS, free.capacity(d));
      for (int level = 0; level < LEVELS; level++) {
        packed[first[level] + group(index, level, d)] += unit;
      }
    }
    int[] units = Arrays.copyOf(first, LEVELS + 1 + SECTIONS * groups);
    for (int level = 0; level < LEVELS; level++) {
      Arrays.sort(packed, first[level], first[level + 1]);
    }
    for (int i = 0; i < groups; i++) {
      for (int section = 0; section < SECTIONS; section++) {
        units[LEVELS + 1 + section * groups + i] = unpack(packed[i], section);
      }
    }
    return new GroupCounts(units, groups, hasGpus, hasHcas);
  }

  /** A count in its place of a group's packed counts; a group has fewer than 2^16 devices. */
  private static long pack(int section, int count) {
    return (long) count << (BITS * (SECTIONS - 1 - section));
  }

  private static int unpack(long packed, int section) {
    return (int) (packed >>> (BITS * (SECTIONS - 1 - section))) & ((1 << BITS) - 1);
  }

  private static int groupCount(LocalityIndex index, int level) {
    return level < LEVELS - 1 ? index.groupCount(LocalityIndex.GROUPED_LEVELS.get(level)) : 1;
  }

  private static int group(LocalityIndex index, int level, int device) {
    return level < LEVELS - 1 ? index.group(LocalityIndex.GROUPED_LEVELS.get(level), device) : 0;
  }

  /** Whether the machine has a GPU, healthy or not. */
  boolean hasGpus() {
    return hasGpus;
  }

  /** Whether the machine has an HCA, healthy or not. */
  boolean hasHcas() {
    return hasHcas;
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

  @Override
  public boolean equals(Object o) {
    return o instanceof GroupCounts c
        && c.hash == hash
        && c.hasGpus == hasGpus
        && c.hasHcas == hasHcas
        && Arrays.equals(c.units, units);
  }

  @Override
  public int hashCode() {
    return hash;
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
