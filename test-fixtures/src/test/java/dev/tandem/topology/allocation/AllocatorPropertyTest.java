package dev.tandem.topology.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.Sketch;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.IntPredicate;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The allocator's answer equals a brute-force optimum on random small machines and random free
 * sets: same feasibility under the policy, same worst locality, same number of groups at that
 * locality.
 */
class AllocatorPropertyTest {

  @Property(tries = 3000)
  @Label("allocator matches the brute-force optimum")
  void matchesBruteForce(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 3) int gpus,
      @ForAll @IntRange(min = 0, max = 3) int hcas,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    Random random = new Random(seed);
    Machine machine = Sketch.random(random, "random", 0, 5);
    LocalityIndex index = LocalityIndex.of(machine);
    List<String> taken = new ArrayList<>();
    for (Device d : machine.devices()) {
      if (random.nextInt(3) == 0) {
        taken.add(d.id());
      }
    }
    Availability free = Availability.allFree(index, 1).without(taken);
    AlignmentPolicy policy = new AlignmentPolicy(alignment, mode);
    AllocationResult result =
        new Allocator(index).allocate(new AllocationRequest(gpus, hcas, policy), free);
    BruteForce best = BruteForce.search(index, free, gpus, hcas);
    String context = "seed " + seed + ", " + gpus + "+" + hcas + " " + policy + ", taken " + taken;

    Locality limit = gpus > 0 && hcas > 0 ? policy.filterLimit() : Locality.SYS;
    boolean feasible = best.worst != null && best.worst.isWithin(limit);
    assertEquals(feasible, result.feasible(), context + ", brute force worst " + best.worst);
    if (!(result instanceof Allocation a)) {
      return;
    }
    assertEquals(gpus, a.gpus().size(), context);
    assertEquals(hcas, a.hcas().size(), context);
    Set<String> chosen = new HashSet<>();
    a.gpus().forEach(d -> assertTrue(chosen.add(d.id()) && free.free(d.id()) > 0, context));
    a.hcas().forEach(d -> assertTrue(chosen.add(d.id()) && free.free(d.id()) > 0, context));
    int[] picks = picks(index, a);
    assertEquals(
        BruteForce.worst(index, picks, gpus > 0 && hcas > 0),
        a.worst(),
        context + ": reported worst");
    assertEquals(best.worst, a.worst(), context + ": optimal worst");
    if (gpus > 0 && hcas > 0 && a.worst() != Locality.X) {
      assertEquals(
          best.groups, BruteForce.groupsUsed(index, picks, a.worst()), context + ": groups used");
    }
  }

  @Property(tries = 5000)
  @Label("the verdict from the group counts is the allocator's answer")
  void verdictIsTheAllocatorsAnswer(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 6) int gpus,
      @ForAll @IntRange(min = 0, max = 6) int hcas,
      @ForAll @IntRange(min = 1, max = 2) int slots,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    Random random = new Random(seed);
    LocalityIndex index = someUnhealthy(random);
    List<String> taken = new ArrayList<>();
    boolean allFree = random.nextInt(4) == 0; // then a refusal is never resolvable
    for (Device d : allFree ? List.<Device>of() : index.devices()) {
      for (int u = random.nextInt(slots + 2); u > 0; u--) {
        taken.add(d.id());
      }
    }
    Availability free = Availability.allFree(index, slots).without(taken);
    AllocationRequest request =
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
    Allocator allocator = new Allocator(index);
    assertEquals(
        Verdict.of(allocator.allocate(request, free)),
        allocator.verdict(request, free),
        "seed " + seed + ", " + gpus + "+" + hcas + " " + request.policy() + ", taken " + taken);
  }

  @Property(tries = 1000)
  @Label("free sets of one machine with equal group counts get the allocator's same answer")
  void equalCountsEqualVerdicts(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 6) int gpus,
      @ForAll @IntRange(min = 0, max = 6) int hcas,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    Random random = new Random(seed);
    LocalityIndex index = someUnhealthy(random);
    Allocator allocator = new Allocator(index);
    AllocationRequest request =
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
    Map<GroupCounts, Verdict> seen = new HashMap<>();
    for (int set = 0; set < 24; set++) {
      List<String> taken = new ArrayList<>();
      for (Device d : index.devices()) {
        if (random.nextInt(3) == 0) {
          taken.add(d.id());
        }
      }
      Availability free = Availability.allFree(index, 1).without(taken);
      Verdict answer = Verdict.of(allocator.allocate(request, free));
      Verdict first = seen.putIfAbsent(GroupCounts.of(free), answer);
      assertEquals(
          first == null ? answer : first,
          answer,
          "seed " + seed + ", " + request + ", taken " + taken);
      assertEquals(answer, Allocator.verdict(request, GroupCounts.of(free)), "seed " + seed);
    }
  }

  /** A random machine of up to 8 devices, about one in eight unhealthy. */
  private static LocalityIndex someUnhealthy(Random random) {
    Machine sketch = Sketch.random(random, "random", 0, 8);
    LocalityIndex plain = LocalityIndex.of(sketch);
    return LocalityIndex.of(withHealth(sketch, plain, d -> random.nextInt(8) != 0));
  }

  private static Machine withHealth(Machine m, LocalityIndex index, IntPredicate healthy) {
    List<Device> devices = new ArrayList<>();
    for (int d = 0; d < index.devices().size(); d++) {
      devices.add(index.devices().get(d).withHealthy(healthy.test(d)));
    }
    return new Machine(m.nodeName(), m.source(), m.pcie(), devices);
  }

  private static int[] picks(LocalityIndex index, Allocation a) {
    int[] picks = new int[index.devices().size()];
    a.gpus().forEach(d -> picks[index.indexOf(d.id())]++);
    a.hcas().forEach(d -> picks[index.indexOf(d.id())]++);
    return picks;
  }

  /**
   * Every selection of free devices, the best worst locality, and the fewest groups at that
   * locality.
   */
  static final class BruteForce {
    Locality worst;
    int groups = Integer.MAX_VALUE;

    static BruteForce search(LocalityIndex index, Availability free, int gpus, int hcas) {
      List<Integer> freeGpus = new ArrayList<>();
      List<Integer> freeHcas = new ArrayList<>();
      for (int d = 0; d < index.devices().size(); d++) {
        if (free.free(d) > 0) {
          (index.devices().get(d).kind() == DeviceKind.GPU ? freeGpus : freeHcas).add(d);
        }
      }
      BruteForce best = new BruteForce();
      if (freeGpus.size() < gpus || freeHcas.size() < hcas) {
        return best;
      }
      boolean paired = gpus > 0 && hcas > 0;
      for (List<Integer> g : subsets(freeGpus, gpus)) {
        for (List<Integer> h : subsets(freeHcas, hcas)) {
          int[] picks = new int[index.devices().size()];
          g.forEach(i -> picks[i] = 1);
          h.forEach(i -> picks[i] = 1);
          Locality w = worst(index, picks, paired);
          if (best.worst == null || w.compareTo(best.worst) < 0) {
            best.worst = w;
            best.groups = Integer.MAX_VALUE;
          }
          if (w == best.worst && paired && w != Locality.X) {
            best.groups = Math.min(best.groups, groupsUsed(index, picks, w));
          }
        }
      }
      return best;
    }

    static Locality worst(LocalityIndex index, int[] picks, boolean paired) {
      Locality worst = Locality.X;
      List<Device> devices = index.devices();
      for (int a = 0; a < picks.length; a++) {
        if (picks[a] == 0) {
          continue;
        }
        Locality nearest = paired ? Locality.SYS : Locality.X;
        for (int b = 0; b < picks.length; b++) {
          if (picks[b] == 0 || a == b) {
            continue;
          }
          boolean otherKind = devices.get(a).kind() != devices.get(b).kind();
          Locality l = index.locality(a, b);
          if (paired && otherKind && l.compareTo(nearest) < 0) {
            nearest = l;
          }
          if (!paired) {
            nearest = Locality.worse(nearest, l);
          }
        }
        worst = Locality.worse(worst, nearest);
      }
      return worst;
    }

    static int groupsUsed(LocalityIndex index, int[] picks, Locality level) {
      if (level == Locality.SYS) {
        return 1;
      }
      Set<Integer> groups = new HashSet<>();
      for (int d = 0; d < picks.length; d++) {
        if (picks[d] > 0) {
          groups.add(index.group(level, d));
        }
      }
      return groups.size();
    }

    static List<List<Integer>> subsets(List<Integer> items, int size) {
      List<List<Integer>> out = new ArrayList<>();
      collect(items, size, 0, new ArrayList<>(), out);
      return out;
    }

    private static void collect(
        List<Integer> items, int size, int from, List<Integer> current, List<List<Integer>> out) {
      if (current.size() == size) {
        out.add(List.copyOf(current));
        return;
      }
      for (int i = from; i < items.size(); i++) {
        current.add(items.get(i));
        collect(items, size, i + 1, current, out);
        current.remove(current.size() - 1);
      }
    }
  }
}
