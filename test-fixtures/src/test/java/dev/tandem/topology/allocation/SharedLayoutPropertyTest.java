package dev.tandem.topology.allocation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.fixtures.Sketch;
import dev.tandem.topology.locality.GroupLayout;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A tree whose index holds a {@link GroupLayout} shared with other trees answers exactly as with
 * its own layout: the same allocation (the same devices), the same refusal, the same verdict, the
 * same locality between any two devices. Layouts are shared as the extender shares them, through
 * one pool of equal layouts over all tries: another node of the model (ids and health of its own)
 * gets the model's, and any earlier tree with an equal layout, however its tree looked, lends its
 * own. And a layout that is not equal is never taken.
 */
class SharedLayoutPropertyTest {

  private static final Map<GroupLayout, GroupLayout> POOL = new ConcurrentHashMap<>();

  private static GroupLayout pooled(GroupLayout layout) {
    return POOL.computeIfAbsent(layout, l -> l);
  }

  @Property(tries = 3000)
  @Label("a node on its model's shared layout gets the answers of its own layout")
  void sharedLayoutSameAnswers(
      @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 6) int gpus,
      @ForAll @IntRange(min = 0, max = 6) int hcas,
      @ForAll @IntRange(min = 1, max = 2) int slots,
      @ForAll Alignment alignment,
      @ForAll AlignmentMode mode) {
    Random random = new Random(seed);
    Machine model = Sketch.random(random, "model", 0, 8);
    Machine node = otherNodeOf(model, random);
    GroupLayout modelLayout = LocalityIndex.of(model, SharedLayoutPropertyTest::pooled).layout();
    LocalityIndex own = LocalityIndex.of(node);
    LocalityIndex shared = LocalityIndex.of(node, SharedLayoutPropertyTest::pooled);
    assertSame(modelLayout, shared.layout());
    String context = "seed " + seed + ", " + gpus + "+" + hcas + " " + alignment + "/" + mode;

    List<String> taken = new ArrayList<>();
    for (Device d : node.devices()) {
      for (int u = random.nextInt(slots + 2) - 1; u > 0; u--) {
        taken.add(d.id());
      }
    }
    AllocationRequest request =
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
    Availability ownFree = Availability.allFree(own, slots).without(taken);
    Availability sharedFree = Availability.allFree(shared, slots).without(taken);
    Allocator ownAllocator = new Allocator(own);
    Allocator sharedAllocator = new Allocator(shared);
    assertEquals(
        ownAllocator.allocate(request, ownFree),
        sharedAllocator.allocate(request, sharedFree),
        context + ", taken " + taken);
    assertEquals(
        ownAllocator.verdict(request, ownFree),
        sharedAllocator.verdict(request, sharedFree),
        context + ", taken " + taken);
    assertEquals(
        ownAllocator.allocate(request, ownFree.emptied()),
        sharedAllocator.allocate(request, sharedFree.emptied()),
        context + ", nothing taken");
    int n = node.devices().size();
    for (int a = 0; a < n; a++) {
      for (int b = 0; b < n; b++) {
        assertEquals(own.locality(a, b), shared.locality(a, b), context + ": " + a + "↔" + b);
      }
    }
  }

  @Property(tries = 1000)
  @Label("a layout of another shape is refused")
  void otherShapeRefused(@ForAll long seed) {
    Random random = new Random(seed);
    Machine one = Sketch.random(random, "one", 0, 6);
    Machine other = Sketch.random(random, "other", 0, 6);
    GroupLayout otherLayout = GroupLayout.of(other);
    if (GroupLayout.of(one).equals(otherLayout)) {
      assertEquals(GroupLayout.of(one).hashCode(), otherLayout.hashCode(), "seed " + seed);
      return;
    }
    assertNotEquals(otherLayout, LocalityIndex.of(one).layout(), "seed " + seed);
    assertThrows(
        IllegalArgumentException.class,
        () -> LocalityIndex.of(one, layout -> otherLayout),
        "seed " + seed);
  }

  /**
   * Another node of the model: the same tree, its own device ids (a GPU UUID, an HCA GUID of its
   * own, in the model's order) and some devices unhealthy.
   */
  private static Machine otherNodeOf(Machine model, Random random) {
    List<Device> devices = new ArrayList<>();
    for (Device d : model.devices()) {
      devices.add(d.withId("other-" + d.id()).withHealthy(random.nextInt(6) != 0));
    }
    return new Machine("other", model.source(), model.pcie(), devices);
  }
}
