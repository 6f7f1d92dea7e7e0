package dev.tandem.topology.allocation;

import dev.tandem.topology.locality.GroupLayout;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.Alignment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Chooses GPUs and HCAs for a request on one machine. One implementation serves the scheduler
 * extender (feasible? score?) and the device plugin (which HCAs?).
 *
 * <p>The rules, in order:
 *
 * <ol>
 *   <li><b>Policy.</b> Every chosen GPU has a chosen HCA within the allowed locality, and every
 *       chosen HCA serves a chosen GPU.
 *   <li><b>Best worst case.</b> The worst such GPU↔HCA locality is as good as the node allows. The
 *       devices sharing a group at a locality level (see {@link LocalityIndex}) are all that close
 *       to each other, so the request fits at level L exactly when some set of at most min(GPUs,
 *       HCAs) groups at L, each with a free GPU and a free HCA, holds enough of both.
 *   <li><b>Compact.</b> As few groups as possible at that level.
 *   <li><b>Least fragmentation.</b> Among those, break as few untouched groups as possible, then
 *       leave as few free units in the touched groups as possible (best fit): partly used switches
 *       fill up, whole switches stay free for larger pods.
 *   <li>Inside each chosen group the same rules apply one level finer, down to single switches.
 *   <li><b>Deterministic.</b> Remaining ties go to the group and device that come first in the
 *       machine's canonical order.
 * </ol>
 *
 * <p>A request for one kind only has no pairing: it goes to the smallest group that holds it all,
 * best fit. Thread-safe; builds no state between calls.
 */
public final class Allocator {

  private static final Locality[] LEVELS = GroupLayout.LEVELS.toArray(Locality[]::new);
  private static final int SYS = LEVELS.length - 1;

  private final LocalityIndex index;
  private final List<Device> devices;

  /** The groups of the devices at each level, shared by every tree of this shape. */
  private final GroupLayout layout;

  private final boolean hasGpu;
  private final boolean hasHca;

  public Allocator(LocalityIndex index) {
    this.index = index;
    this.devices = index.devices();
    this.layout = index.layout();
    this.hasGpu = devices.stream().anyMatch(d -> d.kind() == DeviceKind.GPU);
    this.hasHca = devices.stream().anyMatch(d -> d.kind() == DeviceKind.HCA);
  }

  public LocalityIndex index() {
    return index;
  }

  public AllocationResult allocate(AllocationRequest request, Availability free) {
    checkIndex(free);
    Infeasible shortage =
        shortage(
            request,
            hasGpu,
            hasHca,
            free.freeUnits(DeviceKind.GPU),
            free.freeUnits(DeviceKind.HCA),
            free::capacityUnits);
    if (shortage != null) {
      return shortage;
    }
    if (request.gpus() == 0 && request.hcas() == 0) {
      return new Allocation(List.of(), List.of(), Locality.X, 10);
    }
    Search search = new Search(free);
    if (!request.paired()) {
      return search.single(request);
    }
    Locality limit = request.policy().filterLimit();
    Allocation best = search.paired(request, limit);
    if (best != null) {
      return best;
    }
    Allocation unconstrained = new Search(free).paired(request, Locality.SYS);
    Availability empty = free.emptied();
    Allocation whenEmpty = new Search(empty).paired(request, Locality.SYS);
    Allocation closest =
        new Search(empty).paired(new AllocationRequest(1, 1, request.policy()), Locality.SYS);
    return Refusals.misaligned(request, unconstrained.worst(), whenEmpty.worst(), closest.worst());
  }

  /**
   * What {@link #allocate} answers, without choosing devices: its refusal, or its allocation's
   * worst locality and score. When every device has at most one unit (whole GPUs and HCAs) it
   * follows from the free units per group ({@link #verdict(AllocationRequest, GroupCounts)}), at a
   * fraction of the cost. With shared slots or replicas it is the allocator's answer.
   */
  public Verdict verdict(AllocationRequest request, Availability free) {
    checkIndex(free);
    GroupCounts counts = free.counts();
    if (counts == GroupCounts.NONE) {
      return Verdict.of(allocate(request, free));
    }
    return verdict(request, counts);
  }

  /**
   * The verdict on whole GPUs and HCAs, from the machine's {@link GroupCounts} alone: the
   * allocation's worst locality is the best the node offers (rule 2), and each device chosen leaves
   * the free ones. Equal counts, equal verdicts, whichever machine they come from; a caller may
   * keep a verdict per counts (the scheduler extender does, for nodes in the same state).
   *
   * @param counts not {@link GroupCounts#NONE}
   */
  public static Verdict verdict(AllocationRequest request, GroupCounts counts) {
    if (counts == GroupCounts.NONE) {
      throw new IllegalArgumentException(
          "no group counts where devices have several units: ask the allocator");
    }
    Infeasible shortage =
        shortage(
            request,
            counts.hasGpus(),
            counts.hasHcas(),
            counts.gpus(),
            counts.hcas(),
            counts::healthy);
    if (shortage != null) {
      return Verdict.refused(shortage);
    }
    int gpus = request.gpus();
    int hcas = request.hcas();
    if (gpus == 0 && hcas == 0) {
      return new Verdict(null, Locality.X, 10);
    }
    // every chosen device gives its one unit: the devices left free are the free units left
    int left = counts.gpus() + counts.hcas() - gpus - hcas;
    Alignment alignment = request.policy().alignment();
    if (!request.paired()) {
      Locality spread =
          gpus + hcas == 1 ? Locality.X : LEVELS[counts.firstLevel(gpus, hcas, 1, false)];
      return new Verdict(null, spread, PlacementScore.of(spread, alignment, left));
    }
    int pairs = Math.min(gpus, hcas);
    Locality best = LEVELS[counts.firstLevel(gpus, hcas, pairs, false)];
    Locality limit = request.policy().filterLimit();
    if (best.isWithin(limit)) {
      return new Verdict(null, best, PlacementScore.of(best, alignment, left));
    }
    Locality whenEmpty = LEVELS[counts.firstLevel(gpus, hcas, pairs, true)];
    Locality closest = LEVELS[counts.firstLevel(1, 1, 1, true)];
    return Verdict.refused(Refusals.misaligned(request, best, whenEmpty, closest));
  }

  private void checkIndex(Availability free) {
    if (free.index() != index) {
      throw new IllegalArgumentException(
          "availability of node "
              + free.index().machine().nodeName()
              + " used with the allocator of node "
              + index.machine().nodeName());
    }
  }

  /**
   * @param hasGpu whether the machine has a GPU at all
   * @param hasHca whether it has an HCA at all
   * @param healthy units of a kind when nothing is taken: whether freeing devices would help
   */
  private static Infeasible shortage(
      AllocationRequest r,
      boolean hasGpu,
      boolean hasHca,
      int gpus,
      int hcas,
      ToIntFunction<DeviceKind> healthy) {
    if (r.gpus() > 0 && !hasGpu) {
      return Refusals.NO_GPUS;
    }
    if (r.hcas() > 0 && !hasHca) {
      return Refusals.NO_HCAS;
    }
    if (gpus < r.gpus()) {
      return Refusals.shortage(
          r, DeviceKind.GPU, gpus, r.gpus(), healthy.applyAsInt(DeviceKind.GPU) >= r.gpus());
    }
    if (hcas < r.hcas()) {
      return Refusals.shortage(
          r, DeviceKind.HCA, hcas, r.hcas(), healthy.applyAsInt(DeviceKind.HCA) >= r.hcas());
    }
    return null;
  }

  /** The state of one allocation: units taken so far, per device. */
  private final class Search {
    private final Availability free;
    private final int[] taken = new int[devices.size()];
    private final int[] gpuFree = new int[devices.size() + 1];
    private final int[] hcaFree = new int[devices.size() + 1];
    private final boolean[] untouched = new boolean[devices.size() + 1];
    private final boolean[] present = new boolean[devices.size() + 1];

    Search(Availability free) {
      this.free = free;
    }

    Allocation paired(AllocationRequest r, Locality limit) {
      for (int level = 0; level <= SYS && LEVELS[level].isWithin(limit); level++) {
        GroupSet set = bestSet(SYS, 0, level, r.gpus(), r.hcas(), Math.min(r.gpus(), r.hcas()));
        if (set != null) {
          for (int i = 0; i < set.groups.length; i++) {
            fillPaired(level, set.groups[i], set.gpus[i], set.hcas[i]);
          }
          return result(r, true);
        }
      }
      return null;
    }

    Allocation single(AllocationRequest r) {
      for (int level = 0; level <= SYS; level++) {
        GroupSet set = bestSet(SYS, 0, level, r.gpus(), r.hcas(), 1);
        if (set != null) {
          fillSingle(level, set.groups[0], r.gpus(), r.hcas());
          return result(r, false);
        }
      }
      throw new IllegalStateException(
          "whole machine cannot hold a request that passed the shortage check");
    }

    private void fillPaired(int level, int group, int gpus, int hcas) {
      if (level == 0) {
        pick(level, group, gpus, hcas);
        return;
      }
      for (int finer = 0; finer < level; finer++) {
        GroupSet set = bestSet(level, group, finer, gpus, hcas, Math.min(gpus, hcas));
        if (set != null) {
          for (int i = 0; i < set.groups.length; i++) {
            fillPaired(finer, set.groups[i], set.gpus[i], set.hcas[i]);
          }
          return;
        }
      }
      fillSingle(level, group, gpus, 0);
      followGpus(level, group, hcas);
    }

    /**
     * When the pairs cannot all be formed one level finer, the HCAs still go next to the GPUs just
     * chosen where they can: level by level from PIX, each chosen GPU in turn takes one free HCA of
     * its group; what remains is placed compactly.
     */
    private void followGpus(int level, int group, int hcas) {
      int need = hcas;
      for (int finer = 0; finer <= level && need > 0; finer++) {
        boolean progress = true;
        while (need > 0 && progress) {
          progress = false;
          for (int g : layout.members(level, group)) {
            if (need > 0
                && layout.isGpu(g)
                && taken[g] > 0
                && takeRound(finer, layout.group(finer, g), false, 1, true) == 0) {
              need--;
              progress = true;
            }
          }
        }
      }
      fillSingle(level, group, 0, need);
    }

    /**
     * One kind ({@code gpus} or {@code hcas} is 0) inside a group: smallest subgroup, else fewest.
     */
    private void fillSingle(int level, int group, int gpus, int hcas) {
      if (gpus == 0 && hcas == 0) {
        return;
      }
      if (level == 0) {
        pick(level, group, gpus, hcas);
        return;
      }
      for (int finer = 0; finer < level; finer++) {
        GroupSet set = bestSet(level, group, finer, gpus, hcas, 1);
        if (set != null) {
          fillSingle(finer, set.groups[0], gpus, hcas);
          return;
        }
      }
      GroupSet spread = bestSet(level, group, level - 1, gpus, hcas, Integer.MAX_VALUE);
      for (int i = 0; i < spread.groups.length; i++) {
        fillSingle(level - 1, spread.groups[i], spread.gpus[i], spread.hcas[i]);
      }
    }

    /**
     * The best set of groups at {@code level}, inside the group {@code region} of level {@code
     * regionLevel}, that holds the request: fewest groups, then fewest untouched groups broken,
     * then least left over; null when none does.
     */
    private GroupSet bestSet(
        int regionLevel, int region, int level, int gpus, int hcas, int maxSets) {
      int count = layout.groupCount(level);
      Arrays.fill(gpuFree, 0, count, 0);
      Arrays.fill(hcaFree, 0, count, 0);
      Arrays.fill(present, 0, count, false);
      Arrays.fill(untouched, 0, count, true);
      for (int d : layout.members(regionLevel, region)) {
        int g = layout.group(level, d);
        int units = free.free(d) - taken[d];
        present[g] = true;
        if (layout.isGpu(d)) {
          gpuFree[g] += units;
        } else {
          hcaFree[g] += units;
        }
        if (units != free.capacity(d)) {
          untouched[g] = false;
        }
      }
      int[] usable = usableGroups(count, gpus, hcas);
      int maxK = Math.min(maxSets, usable.length);
      int[] topGpus = largestFirst(usable, gpuFree);
      int[] topHcas = largestFirst(usable, hcaFree);
      int sumGpus = 0;
      int sumHcas = 0;
      for (int k = 1; k <= maxK; k++) {
        sumGpus += topGpus[k - 1];
        sumHcas += topHcas[k - 1];
        if (sumGpus < gpus || sumHcas < hcas) {
          continue; // even the k largest groups cannot hold the request
        }
        GroupSet best = bestOfSize(usable, k, gpus, hcas);
        if (best != null) {
          return best;
        }
      }
      return null;
    }

    /** The free units of the usable groups, largest first. */
    private int[] largestFirst(int[] usable, int[] units) {
      int[] out = new int[usable.length];
      for (int i = 0; i < usable.length; i++) {
        out[i] = -units[usable[i]];
      }
      Arrays.sort(out);
      for (int i = 0; i < out.length; i++) {
        out[i] = -out[i];
      }
      return out;
    }

    private int[] usableGroups(int count, int gpus, int hcas) {
      int n = 0;
      int[] out = new int[count];
      for (int g = 0; g < count; g++) {
        boolean ok = present[g] && (gpus == 0 || gpuFree[g] > 0) && (hcas == 0 || hcaFree[g] > 0);
        if (ok) {
          out[n++] = g;
        }
      }
      return Arrays.copyOf(out, n);
    }

    private GroupSet bestOfSize(int[] usable, int k, int gpus, int hcas) {
      int[] combo = Combinations.first(k);
      int[] best = null;
      int bestBroken = Integer.MAX_VALUE;
      int bestLeft = Integer.MAX_VALUE;
      while (true) {
        int g = 0;
        int h = 0;
        int broken = 0;
        for (int i : combo) {
          int group = usable[i];
          g += gpuFree[group];
          h += hcaFree[group];
          broken += untouched[group] ? 1 : 0;
        }
        if (g >= gpus && h >= hcas) {
          int left = (gpus > 0 ? g - gpus : 0) + (hcas > 0 ? h - hcas : 0);
          if (broken < bestBroken || (broken == bestBroken && left < bestLeft)) {
            best = combo.clone();
            bestBroken = broken;
            bestLeft = left;
            if (broken == 0 && left == 0) {
              break; // nothing can beat a perfect fit of partly used groups
            }
          }
        }
        if (!Combinations.next(combo, usable.length)) {
          break;
        }
      }
      if (best == null) {
        return null;
      }
      int[] groups = new int[k];
      for (int i = 0; i < k; i++) {
        groups[i] = usable[best[i]];
      }
      return GroupSet.distribute(groups, gpuFree, hcaFree, gpus, hcas);
    }

    /**
     * Takes devices in canonical order; units go to distinct devices before any device gives two (a
     * shared HCA's slots, a time-sliced GPU's replicas).
     */
    private void pick(int level, int group, int gpus, int hcas) {
      int needGpus = spread(level, group, true, gpus);
      int needHcas = spread(level, group, false, hcas);
      if (needGpus > 0 || needHcas > 0) {
        throw new IllegalStateException(
            "group "
                + group
                + " at "
                + LEVELS[level]
                + " cannot hold what its counts promised on node "
                + index.machine().nodeName());
      }
    }

    /** Takes units of one kind, first one per untouched device, then round by round; the rest. */
    private int spread(int level, int group, boolean gpus, int need) {
      int left = takeRound(level, group, gpus, need, true);
      while (left > 0) {
        int before = left;
        left = takeRound(level, group, gpus, left, false);
        if (left == before) {
          break;
        }
      }
      return left;
    }

    /**
     * Takes one unit from each matching device in order until {@code need} is met; returns the
     * rest.
     */
    private int takeRound(int level, int group, boolean gpus, int need, boolean untakenOnly) {
      for (int d : layout.members(level, group)) {
        if (need == 0) {
          break;
        }
        if (layout.isGpu(d) == gpus
            && free.free(d) - taken[d] > 0
            && (!untakenOnly || taken[d] == 0)) {
          taken[d]++;
          need--;
        }
      }
      return need;
    }

    private Allocation result(AllocationRequest r, boolean paired) {
      List<Device> gpus = new ArrayList<>();
      List<Device> hcas = new ArrayList<>();
      int[] chosen = new int[taken.length];
      int count = 0;
      int gpuCount = 0;
      int leftFree = 0;
      for (int d = 0; d < taken.length; d++) {
        if (taken[d] > 0) {
          chosen[count++] = d;
          gpuCount += layout.isGpu(d) ? 1 : 0;
        }
        if (free.free(d) > taken[d]) {
          leftFree++;
        }
        for (int u = 0; u < taken[d]; u++) {
          (layout.isGpu(d) ? gpus : hcas).add(devices.get(d));
        }
      }
      Locality worst = paired ? pairing(chosen, count, gpuCount) : spread(chosen, count);
      return new Allocation(
          gpus, hcas, worst, PlacementScore.of(worst, r.policy().alignment(), leftFree));
    }

    /** The chosen devices split by kind, paired as {@link LocalityIndex#pairing} measures. */
    private Locality pairing(int[] chosen, int count, int gpuCount) {
      int[] chosenGpus = new int[gpuCount];
      int[] chosenHcas = new int[count - gpuCount];
      int g = 0;
      int h = 0;
      for (int i = 0; i < count; i++) {
        if (layout.isGpu(chosen[i])) {
          chosenGpus[g++] = chosen[i];
        } else {
          chosenHcas[h++] = chosen[i];
        }
      }
      return index.pairing(chosenGpus, chosenHcas);
    }

    private Locality spread(int[] chosen, int count) {
      Locality worst = Locality.X;
      for (int i = 0; i < count; i++) {
        for (int j = i + 1; j < count; j++) {
          worst = Locality.worse(worst, index.locality(chosen[i], chosen[j]));
        }
      }
      return worst;
    }
  }
}
