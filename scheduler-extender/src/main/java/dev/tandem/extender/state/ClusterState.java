package dev.tandem.extender.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.api.crd.Sharing;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.locality.GroupLayout;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * What the cluster reports: per node, the tree the agent publishes, the allocations it reports and
 * the HCA units the kubelet advertises; and which pods went away. Sources (the informers, or the
 * demo) write into it; the verbs and the inspection API read it. A node's entry also counts the
 * plans the extender {@link Assumptions assumed} on it. Reads are lock-free. Every change to a node
 * runs inside {@link NodeTable#compute} on that node's key, so changes to one node are serialized.
 */
public final class ClusterState {

  private final NodeTable nodes;
  private final Assumptions assumptions;
  private final Clock clock;
  private final Map<String, String> reportedNode = new ConcurrentHashMap<>();
  private final Map<String, Long> hcaCapacity = new ConcurrentHashMap<>();
  private final Set<String> nodeObjects = ConcurrentHashMap.newKeySet();
  private final SharedParts sharing = new SharedParts();
  private final GangRailBook gangRails;

  /**
   * Pods deleted or finished, by UID. The agent reports a pod's devices until its next PodResources
   * poll after the kubelet lets them go; until then they would look taken. A UID is never reused,
   * so forgetting one late only costs memory.
   */
  private final Cache<String, Boolean> gone =
      Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(30)).maximumSize(100_000).build();

  /**
   * @param assumptions the plans on the same nodes: a report of a pod's devices ends its plan
   * @param clock time of the agent's updates
   */
  ClusterState(NodeTable nodes, Assumptions assumptions, Clock clock) {
    this.nodes = nodes;
    this.assumptions = assumptions;
    this.clock = clock;
    this.gangRails = new GangRailBook(this::node, clock, GangRailBook.CHOICE_TTL);
  }

  /** The rails of each gang: its placed members' and its first member's choice. */
  public GangRailBook gangRails() {
    return gangRails;
  }

  /**
   * What a source converting NodeTopologies shares between trees ({@code
   * NodeTopologyMapper.toMachine(resource, sharing)}), so that nodes of one model hold their common
   * parts once.
   */
  public Sharing sharing() {
    return sharing;
  }

  // ---- reads

  public NodeEntry node(String name) {
    return nodes.get(name);
  }

  /** The index for a loop over many node names (filter, prioritize): take it once per request. */
  public NodeDirectory directory() {
    return nodes.directory();
  }

  public List<NodeEntry> nodes() {
    List<NodeEntry> out = nodes.values();
    out.sort((a, b) -> a.name().compareTo(b.name()));
    return out;
  }

  public int size() {
    return nodes.size();
  }

  /**
   * Whether the node exists as far as this extender knows: it has a NodeTopology, or its Node
   * object was seen (a node without the agent).
   */
  public boolean knows(String name) {
    return nodes.get(name) != null || nodeObjects.contains(name);
  }

  // ---- writes from sources

  /**
   * The agent published (or changed) a node's tree and allocations. An identical update (an
   * informer resync) keeps the node's version, so cached answers stay valid. Allocations of pods
   * already gone are left out: the agent has not polled since they went.
   */
  public void putTopology(Machine machine, int slotsPerHca, List<ReportedAllocation> reported) {
    put(machine, DeviceUnits.UNCOUNTED, MigLayout.NONE, m -> slotsPerHca, reported);
  }

  /**
   * Like {@link #putTopology(Machine, int, List)}, with the units the agent counted from the
   * kubelet and the node's MIG devices (reported MIG ids stand for their GPU through them); where
   * it counted none for the HCAs, the units per HCA follow from the node's advertised HCA capacity
   * ({@link #hcaCapacity}).
   */
  public void putTopology(
      Machine machine, DeviceUnits units, MigLayout mig, List<ReportedAllocation> reported) {
    put(machine, units, mig, this::slotsOf, reported);
  }

  private void put(
      Machine machine,
      DeviceUnits units,
      MigLayout mig,
      ToIntFunction<Machine> slotsOf,
      List<ReportedAllocation> reported) {
    nodes.compute(
        machine.nodeName(),
        (name, old) -> {
          int slotsPerHca = slotsOf.applyAsInt(machine);
          // registered before the tombstones are read, so that a concurrent podGone finds this node
          reported.forEach(a -> reportedNode.put(a.uid(), name));
          List<ReportedAllocation> allocations = new ArrayList<>(reported.size());
          for (ReportedAllocation a : reported) {
            if (gone.getIfPresent(a.uid()) == null) {
              allocations.add(a);
            } else {
              reportedNode.remove(a.uid(), name);
            }
          }
          if (old != null
              && old.slotsPerHca() == slotsPerHca
              && old.units().equals(units)
              && old.mig().equals(mig)
              && old.allocations().equals(allocations)
              && old.machine().equals(machine)) {
            return old;
          }
          Set<String> uids =
              allocations.stream().map(ReportedAllocation::uid).collect(Collectors.toSet());
          if (old != null) {
            old.allocations().stream()
                .filter(a -> !uids.contains(a.uid()))
                .forEach(a -> reportedNode.remove(a.uid(), name));
          }
          Map<String, NodeEntry.Held> held =
              NodeEntry.held(DeviceIds.of(machine, mig), allocations);
          Map<String, AssumedPlan> plans =
              assumptions.keptBeside(
                  name,
                  old,
                  plan -> {
                    NodeEntry.Held h = held.get(plan.pod().uid());
                    return h != null && NodeEntry.covers(h, plan);
                  });
          return NodeEntry.of(
              machine,
              allocatorFor(machine, old),
              units,
              mig,
              slotsPerHca,
              allocations,
              plans,
              clock.instant());
        });
  }

  /**
   * The allocator of a node's tree: the old entry's while the tree is the same, else a new one on
   * the tree's {@link GroupLayout} as shared with every node of that shape (one model's nodes hold
   * one layout; equal layouts give equal answers).
   */
  private Allocator allocatorFor(Machine machine, NodeEntry old) {
    return old != null && old.machine().equals(machine)
        ? old.allocator()
        : new Allocator(LocalityIndex.of(machine, sharing::share));
  }

  /** The node's Node object was seen ({@code present}) or deleted. */
  public void nodeObject(String name, boolean present) {
    if (present) {
      nodeObjects.add(sharing.share(name));
    } else {
      nodeObjects.remove(name);
    }
  }

  /**
   * The HCA resource's capacity the kubelet advertises for the node (from its Node object; 0 when
   * none). In the device plugin's {@code shared} and {@code sriov} modes a node advertises several
   * units per HCA; the units per HCA follow from it (see {@link #slotsOf}).
   */
  public void hcaCapacity(String node, long units) {
    Long old = units > 0 ? hcaCapacity.put(sharing.share(node), units) : hcaCapacity.remove(node);
    if (old == null ? units > 0 : old != units) {
      nodes.computeIfPresent(node, (name, entry) -> entry.withSlots(slotsOf(entry.machine())));
    }
  }

  /**
   * HCA units per HCA: the advertised capacity divided by the HCAs in the tree, when it divides
   * evenly into more than one per HCA; else 1 (one device per HCA, or a plugin that offers only
   * some of the node's HCAs, where the units per HCA cannot be told).
   */
  int slotsOf(Machine machine) {
    Long units = hcaCapacity.get(machine.nodeName());
    int hcas = machine.hcas().size();
    if (units == null || hcas == 0 || units <= hcas || units % hcas != 0) {
      return 1;
    }
    return (int) Math.min(Integer.MAX_VALUE, units / hcas);
  }

  /** The node's NodeTopology went away: its assumed plans go with it. */
  public void removeTopology(String name) {
    NodeEntry old = nodes.remove(name);
    if (old != null) {
      assumptions.nodeGone(name, old);
      old.allocations().forEach(a -> reportedNode.remove(a.uid(), name));
    }
  }

  /**
   * A pod is being deleted: its assumption ends (it will not start if it has not yet). Its reported
   * devices stay taken: its containers may run for their grace period.
   */
  public void podTerminating(String uid) {
    assumptions.release(uid);
  }

  /**
   * A pod was deleted or finished: its assumption ends, the devices the agent reported for it are
   * free now, not at the agent's next report, and it is no longer a member of its gang.
   */
  public void podGone(String uid) {
    assumptions.release(uid);
    gangRails.gone(uid);
    gone.put(uid, Boolean.TRUE);
    String node = reportedNode.remove(uid);
    if (node != null) {
      nodes.computeIfPresent(node, (name, entry) -> entry.withoutReported(uid));
    }
  }
}
