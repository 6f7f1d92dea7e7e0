package dev.tandem.extender.state;

import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One node's state at one version: its tree, what the agent reports allocated, the assumed plans,
 * and the free devices that follow. Immutable: every change makes a new entry with a new version,
 * unique across the process, so a cache keyed by (node, version) never serves a stale answer.
 *
 * @param machine the node's tree
 * @param allocator the allocator for that tree
 * @param slotsPerHca HCA units per device (1 unless the node's HCAs are shared)
 * @param allocations what the agent reports allocated, of the GPU and HCA resources only
 * @param assumed assumed plans by pod UID
 * @param free healthy devices minus reported allocations minus assumed plans
 * @param version unique per change
 * @param updatedAt when the agent's data last changed
 */
public record NodeEntry(
    Machine machine,
    Allocator allocator,
    int slotsPerHca,
    List<ReportedAllocation> allocations,
    Map<String, AssumedPlan> assumed,
    Availability free,
    long version,
    Instant updatedAt) {

  private static final AtomicLong VERSIONS = new AtomicLong();

  public String name() {
    return machine.nodeName();
  }

  public LocalityIndex index() {
    return allocator.index();
  }

  static NodeEntry of(
      Machine machine,
      int slots,
      List<ReportedAllocation> allocations,
      Map<String, AssumedPlan> assumed,
      Instant updatedAt,
      NodeEntry previous) {
    Allocator allocator =
        previous != null && previous.machine.equals(machine)
            ? previous.allocator
            : new Allocator(LocalityIndex.of(machine));
    Map<String, AssumedPlan> plans = Collections.unmodifiableMap(new LinkedHashMap<>(assumed));
    Availability free =
        Availability.allFree(allocator.index(), slots).without(taken(allocations, plans, Set.of()));
    return new NodeEntry(
        machine,
        allocator,
        slots,
        List.copyOf(allocations),
        plans,
        free,
        VERSIONS.incrementAndGet(),
        updatedAt);
  }

  /** Device ids held by the reports and plans, except those of the pods in {@code leaving}. */
  private static List<String> taken(
      List<ReportedAllocation> allocations, Map<String, AssumedPlan> plans, Set<String> leaving) {
    List<String> taken = new ArrayList<>();
    for (ReportedAllocation a : allocations) {
      if (!leaving.contains(a.uid())) {
        taken.addAll(a.deviceIds());
      }
    }
    for (AssumedPlan p : plans.values()) {
      if (!leaving.contains(p.pod().uid())) {
        taken.addAll(p.gpus());
        taken.addAll(p.hcas());
      }
    }
    return taken;
  }

  /**
   * The free devices once the pods in {@code leaving} are gone: what a preemption of them would
   * free (their reported allocations and assumed plans), for the allocator to judge.
   */
  public Availability freeWithout(Set<String> leaving) {
    if (leaving.isEmpty()) {
      return free;
    }
    return Availability.allFree(allocator.index(), slotsPerHca)
        .without(taken(allocations, assumed, leaving));
  }

  /** Whether the pod holds a device here: reported by the agent or promised by an assumed plan. */
  public boolean holdsDevices(String uid) {
    AssumedPlan plan = assumed.get(uid);
    if (plan != null && !(plan.gpus().isEmpty() && plan.hcas().isEmpty())) {
      return true;
    }
    for (ReportedAllocation a : allocations) {
      if (a.uid().equals(uid) && !a.deviceIds().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  NodeEntry withAssumed(Map<String, AssumedPlan> plans) {
    return of(machine, slotsPerHca, allocations, plans, updatedAt, this);
  }

  NodeEntry withSlots(int slots) {
    return slots == slotsPerHca ? this : of(machine, slots, allocations, assumed, updatedAt, this);
  }

  NodeEntry withoutReported(String uid) {
    List<ReportedAllocation> kept = allocations.stream().filter(a -> !a.uid().equals(uid)).toList();
    return kept.size() == allocations.size()
        ? this
        : of(machine, slotsPerHca, kept, assumed, updatedAt, this);
  }

  NodeEntry without(Predicate<AssumedPlan> drop) {
    Map<String, AssumedPlan> kept = new LinkedHashMap<>(assumed);
    kept.values().removeIf(drop);
    return kept.size() == assumed.size() ? this : withAssumed(kept);
  }

  /** Whether the agent reports any device for the pod. */
  public boolean reports(String uid) {
    for (ReportedAllocation a : allocations) {
      if (a.uid().equals(uid)) {
        return true;
      }
    }
    return false;
  }
}
