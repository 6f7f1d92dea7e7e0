package dev.tandem.topology.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.rail.GangRails.Candidate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class GangRailsTest {

  private static final List<Machine> MACHINES =
      List.of(
          Rails.byPciOrder(RealMachines.dgxA100()).machine(),
          Rails.byPciOrder(RealMachines.hgxH200()).machine(),
          Rails.byPciOrder(RealMachines.hgxH100TwelveNic()).machine(),
          Rails.byPciOrder(RealMachines.xe8640()).machine());

  private static final AllocationRequest FOUR =
      new AllocationRequest(4, 4, AlignmentPolicy.DEFAULT);

  /** An HGX H200 with the GPUs and HCAs of these rails taken by other pods. */
  private static Candidate hgxUsing(Set<Integer> taken) {
    Machine m = MACHINES.get(1);
    LocalityIndex index = LocalityIndex.of(m);
    List<String> ids = new ArrayList<>();
    for (Device d : m.devices()) {
      if (d.hca() != null && d.hca().rail() != null && taken.contains(d.hca().rail())) {
        ids.add(d.id());
        ids.add("GPU-" + d.hca().rail());
      }
    }
    return new Candidate(new Allocator(index), Availability.allFree(index, 1).without(ids));
  }

  private static SortedSet<Integer> rails(Integer... r) {
    return new TreeSet<>(List.of(r));
  }

  @Test
  @DisplayName("first member: the rails most members fit on, not the first free")
  void mostPlaceable() {
    List<Candidate> nodes =
        List.of(
            hgxUsing(Set.of(4, 5, 6, 7)),
            hgxUsing(Set.of(0, 1, 2, 3)),
            hgxUsing(Set.of(0, 1, 2, 3)),
            hgxUsing(Set.of(0, 1, 6, 7)));
    assertEquals(rails(4, 5, 6, 7), GangRails.choose(FOUR, nodes));
    assertEquals(2, GangRails.placeable(FOUR, nodes, rails(4, 5, 6, 7)));
    assertEquals(1, GangRails.placeable(FOUR, nodes, rails(0, 1, 2, 3)));
  }

  @Test
  @DisplayName("ties: the fewest, then the lowest rails")
  void ties() {
    List<Candidate> nodes = List.of(hgxUsing(Set.of(0, 1, 2, 3)), hgxUsing(Set.of(4, 5, 6, 7)));
    assertEquals(rails(0, 1, 2, 3), GangRails.choose(FOUR, nodes));
    AllocationRequest one = new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT);
    assertEquals(rails(0), GangRails.choose(one, List.of(hgxUsing(Set.of()))));
  }

  @Test
  @DisplayName("a later member on the gang's rails: planned there, refused where they are taken")
  void laterMember() {
    Candidate half = hgxUsing(Set.of(0, 1, 2, 3));
    Allocation a =
        assertInstanceOf(
            Allocation.class,
            GangRails.plan(half.allocator(), FOUR, half.free(), rails(4, 5, 6, 7)));
    assertEquals(rails(4, 5, 6, 7), RailSets.of(MACHINES.get(1), a.hcaIds()));
    Verdict refused = GangRails.onRails(half.allocator(), FOUR, half.free(), rails(0, 1, 2, 3));
    assertFalse(refused.feasible());
    assertEquals(
        half.allocator().verdict(FOUR, half.free()),
        GangRails.onRails(half.allocator(), FOUR, half.free(), Set.of()),
        "no rails: the plain verdict");
  }

  @Test
  @DisplayName("no HCA asked, or no railed HCA anywhere: no rails")
  void noRails() {
    assertEquals(
        Set.of(),
        GangRails.choose(
            new AllocationRequest(2, 0, AlignmentPolicy.DEFAULT), List.of(hgxUsing(Set.of()))));
    Machine bare = RealMachines.dgxA100();
    LocalityIndex index = LocalityIndex.of(bare);
    Candidate unrailed = new Candidate(new Allocator(index), Availability.allFree(index, 1));
    assertEquals(Set.of(), GangRails.choose(FOUR, List.of(unrailed)));
  }

  @Property(tries = 400)
  @Label("a gang of one on one node: its verdict on the chosen rails is the plain verdict's")
  void gangOfOne(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 3) int machine,
      @ForAll @IntRange(min = 1, max = 4) int gpus,
      @ForAll @IntRange(min = 1, max = 4) int hcas,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    Candidate node = randomNode(new Random(seed), MACHINES.get(machine));
    AllocationRequest request =
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
    AllocationResult plain = node.allocator().allocate(request, node.free());
    SortedSet<Integer> chosen = GangRails.choose(request, List.of(node));
    Verdict onRails = GangRails.onRails(node.allocator(), request, node.free(), chosen);
    String context = "seed " + seed + ", " + request.describe() + ", rails " + chosen;
    if (!(plain instanceof Allocation a)) {
      assertFalse(onRails.feasible(), context);
      return;
    }
    if (a.hcas().stream().allMatch(d -> d.hca().rail() != null)) {
      assertTrue(onRails.feasible(), context);
      boolean aligned = a.worst().isWithin(alignment.worstAllowed());
      assertEquals(aligned, onRails.worst().isWithin(alignment.worstAllowed()), context);
      if (aligned) {
        assertEquals(a.score(), onRails.score(), context + ": as many devices left free");
      }
    }
  }

  @Property(tries = 200)
  @Label("the chosen rails place at least as many members as any candidate plan's rails")
  void chosenIsBest(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 5) int nodes,
      @ForAll @IntRange(min = 1, max = 4) int gpus) {
    Random random = new Random(seed);
    List<Candidate> candidates = new ArrayList<>();
    for (int n = 0; n < nodes; n++) {
      candidates.add(randomNode(random, MACHINES.get(random.nextInt(2))));
    }
    AllocationRequest request = new AllocationRequest(gpus, gpus, AlignmentPolicy.DEFAULT);
    SortedSet<Integer> chosen = GangRails.choose(request, candidates);
    int best = GangRails.placeable(request, candidates, chosen);
    for (Candidate c : candidates) {
      AllocationResult plan = c.allocator().allocate(request, c.free());
      if (plan instanceof Allocation a) {
        SortedSet<Integer> other = RailSets.of(c.allocator().index().machine(), a.hcaIds());
        int count = GangRails.placeable(request, candidates, other);
        assertTrue(
            count < best || (count == best && GangRails.FEWEST_LOWEST.compare(chosen, other) <= 0),
            "seed " + seed + ": " + other + " places " + count + ", chosen " + chosen + " " + best);
      }
    }
    Collections.shuffle(candidates, random);
    assertEquals(chosen, GangRails.choose(request, candidates), "order of the nodes: no matter");
  }

  private static Candidate randomNode(Random random, Machine m) {
    LocalityIndex index = LocalityIndex.of(m);
    List<String> taken = new ArrayList<>();
    for (Device d : m.devices()) {
      if (random.nextInt(3) == 0) {
        taken.add(d.id());
      }
    }
    return new Candidate(new Allocator(index), Availability.allFree(index, 1).without(taken));
  }
}
