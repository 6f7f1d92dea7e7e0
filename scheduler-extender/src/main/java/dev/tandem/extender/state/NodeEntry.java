package dev.tandem.extender.state;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.DeviceKind;
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
 * @param units the kubelet's devices per device of the tree, as the agent counted them
 * @param mig which GPU each MIG device the kubelet reports belongs to, as the agent published it
 * @param slotsPerHca units per HCA where the agent counted none: from the node's advertised
 *     capacity, 1 unless the node's HCAs are shared
 * @param allocations what the agent reports allocated, of the GPU and HCA resources only
 * @param assumed assumed plans by pod UID
 * @param free healthy devices' units minus reported allocations minus the part of assumed plans not
 *     reported yet
 * @param version unique per change
 * @param updatedAt when the agent's data last changed
 */
public record NodeEntry(
    Machine machine,
    Allocator allocator,
    DeviceUnits units,
    MigLayout mig,
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

  /** The one id mapping for this node: its tree and its MIG devices. */
  public DeviceIds ids() {
    return DeviceIds.of(machine, mig);
  }

  /**
   * @param allocator the allocator for {@code machine}'s tree (kept while the tree stays the same)
   */
  static NodeEntry of(
      Machine machine,
      Allocator allocator,
      DeviceUnits units,
      MigLayout mig,
      int slots,
      List<ReportedAllocation> allocations,
      Map<String, AssumedPlan> assumed,
      Instant updatedAt) {
    Map<String, AssumedPlan> plans = Collections.unmodifiableMap(new LinkedHashMap<>(assumed));
    Availability free =
        Availability.allFree(allocator.index(), d -> units.units(d, slots))
            .without(taken(DeviceIds.of(machine, mig), allocations, plans, Set.of()));
    return new NodeEntry(
        machine,
        allocator,
        units,
        mig,
        slots,
        List.copyOf(allocations),
        plans,
        free,
        VERSIONS.incrementAndGet(),
        updatedAt);
  }

  /**
   * Devices of the tree held by the reports and the unreported part of the plans, except those of
   * the pods in {@code leaving}.
   */
  private static List<String> taken(
      DeviceIds ids,
      List<ReportedAllocation> allocations,
      Map<String, AssumedPlan> plans,
      Set<String> leaving) {
    Map<String, Held> held = held(ids, allocations);
    List<String> taken = new ArrayList<>();
    held.forEach(
        (uid, h) -> {
          if (!leaving.contains(uid)) {
            h.addTo(taken);
          }
        });
    for (AssumedPlan p : plans.values()) {
      if (!leaving.contains(p.pod().uid())) {
        Held h = held.getOrDefault(p.pod().uid(), Held.NONE);
        taken.addAll(notYetReported(p.gpus(), h.gpus()));
        taken.addAll(notYetReported(p.hcas(), h.hcas()));
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
    return free.emptied().without(taken(ids(), allocations, assumed, leaving));
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

  /**
   * The devices of the tree the agent reports per pod UID, read through the one id mapping (a
   * shared slot, a VF's PCI address, a GPU replica, a MIG device each stand for their device); ids
   * that stand for no device of the tree are not counted.
   */
  static Map<String, Held> held(DeviceIds ids, List<ReportedAllocation> allocations) {
    if (allocations.isEmpty()) {
      return Map.of();
    }
    Map<String, Held> out = new LinkedHashMap<>();
    for (ReportedAllocation a : allocations) {
      Held h = out.computeIfAbsent(a.uid(), uid -> new Held(new ArrayList<>(), new ArrayList<>()));
      for (String id : a.deviceIds()) {
        ids.device(id)
            .ifPresent(d -> (d.kind() == DeviceKind.GPU ? h.gpus() : h.hcas()).add(d.id()));
      }
    }
    return out;
  }

  /**
   * The part of a plan the report does not cover yet: the kubelet records each resource (and each
   * container) on its own, so for a while a pod's report holds fewer units than its plan. Those
   * still count, from the planned devices the report does not name, so that nothing is counted
   * twice or lost over the hand-over.
   */
  private static List<String> notYetReported(List<String> planned, List<String> reported) {
    int missing = planned.size() - reported.size();
    if (missing <= 0) {
      return List.of();
    }
    List<String> rest = new ArrayList<>(planned);
    reported.forEach(rest::remove);
    return rest.subList(0, Math.min(missing, rest.size()));
  }

  /** Whether the report covers the plan: as many units of each kind reported as planned. */
  static boolean covers(Held reported, AssumedPlan plan) {
    return reported.gpus().size() >= plan.gpus().size()
        && reported.hcas().size() >= plan.hcas().size();
  }

  NodeEntry withAssumed(Map<String, AssumedPlan> plans) {
    return of(machine, allocator, units, mig, slotsPerHca, allocations, plans, updatedAt);
  }

  NodeEntry withSlots(int slots) {
    return slots == slotsPerHca
        ? this
        : of(machine, allocator, units, mig, slots, allocations, assumed, updatedAt);
  }

  NodeEntry withoutReported(String uid) {
    List<ReportedAllocation> kept = allocations.stream().filter(a -> !a.uid().equals(uid)).toList();
    return kept.size() == allocations.size()
        ? this
        : of(machine, allocator, units, mig, slotsPerHca, kept, assumed, updatedAt);
  }

  NodeEntry without(Predicate<AssumedPlan> drop) {
    Map<String, AssumedPlan> kept = new LinkedHashMap<>(assumed);
    kept.values().removeIf(drop);
    return kept.size() == assumed.size() ? this : withAssumed(kept);
  }

  /**
   * The devices of the tree one pod holds as reported, one entry per unit.
   *
   * @param gpus GPU ids of the tree (a GPU once per replica)
   * @param hcas HCA ids of the tree (an HCA once per slot)
   */
  record Held(List<String> gpus, List<String> hcas) {
    static final Held NONE = new Held(List.of(), List.of());

    void addTo(List<String> taken) {
      taken.addAll(gpus);
      taken.addAll(hcas);
    }
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
