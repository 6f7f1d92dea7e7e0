package dev.tandem.extender.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.model.Machine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * What the extender knows about the cluster: per node, the tree, reported allocations and assumed
 * plans. Sources (the informers, or the demo) write into it; the verbs and the inspection API read
 * it. Reads are lock-free. Every change to a node, and the allocate-and-assume step of a bind, runs
 * inside {@link NodeTable#compute} on that node's key, so changes to one node are serialized and
 * two binds never get the same device.
 */
public final class ClusterState {

  private final NodeTable nodes = new NodeTable();
  private final Map<String, String> assumedNode = new ConcurrentHashMap<>();
  private final Map<String, String> reportedNode = new ConcurrentHashMap<>();
  private final Map<String, Long> hcaCapacity = new ConcurrentHashMap<>();

  /**
   * Pods deleted or finished, by UID. The agent reports a pod's devices until its next PodResources
   * poll after the kubelet lets them go; until then they would look taken. A UID is never reused,
   * so forgetting one late only costs memory.
   */
  private final Cache<String, Boolean> gone;

  private final Clock clock;
  private final RecentPods pods;
  private final PodWriter writer;
  private final boolean demo;
  private volatile boolean synced;
  private volatile boolean leader;

  /**
   * @param clock time of plans and expiry
   * @param fallback where a bind's pod is looked up when filter or prioritize did not see it
   * @param writer the API writes of a bind
   * @param demo whether this is the embedded demo cluster
   */
  public ClusterState(Clock clock, PodSource fallback, PodWriter writer, boolean demo) {
    this.clock = clock;
    this.pods = new RecentPods(Duration.ofMinutes(10), 100_000, fallback);
    this.writer = writer;
    this.demo = demo;
    this.gone =
        Caffeine.newBuilder().expireAfterWrite(Duration.ofMinutes(30)).maximumSize(100_000).build();
  }

  public Clock clock() {
    return clock;
  }

  public RecentPods pods() {
    return pods;
  }

  public PodWriter writer() {
    return writer;
  }

  public boolean demo() {
    return demo;
  }

  // ---- readiness

  public void synced(boolean value) {
    synced = value;
  }

  public void leader(boolean value) {
    leader = value;
  }

  public boolean synced() {
    return synced;
  }

  public boolean leader() {
    return leader;
  }

  /** Ready: sources synced and this replica leads. */
  public boolean ready() {
    return synced && leader;
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

  public int assumedCount() {
    return assumedNode.size();
  }

  // ---- writes from sources

  /**
   * The agent published (or changed) a node's tree and allocations. An identical update (an
   * informer resync) keeps the node's version, so cached answers stay valid. Allocations of pods
   * already gone are left out: the agent has not polled since they went.
   */
  public void putTopology(Machine machine, int slotsPerHca, List<ReportedAllocation> reported) {
    put(machine, m -> slotsPerHca, reported);
  }

  /**
   * Like {@link #putTopology(Machine, int, List)}, with the HCA units per HCA read from the node's
   * advertised {@code rdma/hca} capacity ({@link #hcaCapacity}).
   */
  public void putTopology(Machine machine, List<ReportedAllocation> reported) {
    put(machine, this::slotsOf, reported);
  }

  private void put(
      Machine machine, ToIntFunction<Machine> slotsOf, List<ReportedAllocation> reported) {
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
          Map<String, AssumedPlan> plans =
              new LinkedHashMap<>(old == null ? Map.of() : old.assumed());
          plans
              .keySet()
              .removeIf(
                  uid -> {
                    boolean drop = uids.contains(uid);
                    if (drop) {
                      assumedNode.remove(uid, name);
                    }
                    return drop;
                  });
          return NodeEntry.of(machine, slotsPerHca, allocations, plans, clock.instant(), old);
        });
  }

  /**
   * The {@code rdma/hca} capacity the kubelet advertises for the node (from its Node object; 0 when
   * none). In the device plugin's {@code shared} and {@code sriov} modes a node advertises several
   * units per HCA; the units per HCA follow from it (see {@link #slotsOf}).
   */
  public void hcaCapacity(String node, long units) {
    Long old = units > 0 ? hcaCapacity.put(node, units) : hcaCapacity.remove(node);
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
      old.assumed().keySet().forEach(uid -> assumedNode.remove(uid, name));
      old.allocations().forEach(a -> reportedNode.remove(a.uid(), name));
    }
  }

  /**
   * A pod is being deleted: its assumption ends (it will not start if it has not yet). Its reported
   * devices stay taken: its containers may run for their grace period.
   */
  public void podTerminating(String uid) {
    release(uid);
  }

  /**
   * A pod was deleted or finished: its assumption ends and the devices the agent reported for it
   * are free now, not at the agent's next report.
   */
  public void podGone(String uid) {
    release(uid);
    gone.put(uid, Boolean.TRUE);
    String node = reportedNode.remove(uid);
    if (node != null) {
      nodes.computeIfPresent(node, (name, entry) -> entry.withoutReported(uid));
    }
  }

  // ---- assumptions

  /**
   * Chooses devices for the pod on the node and holds them as an assumed plan, atomically with
   * respect to every other change of the node. A plan the pod already held (a retried bind) is
   * released first.
   *
   * @return empty when the node is unknown; else the allocator's answer, assumed when feasible
   */
  public Optional<Assumption> assume(
      String node, PodRef pod, AllocationRequest request, Duration ttl) {
    release(pod.uid());
    Assumption[] result = new Assumption[1];
    Instant now = clock.instant();
    nodes.computeIfPresent(
        node,
        (name, entry) -> {
          AllocationResult r = entry.allocator().allocate(request, entry.free());
          if (!(r instanceof Allocation a)) {
            result[0] = new Assumption(r, null);
            return entry;
          }
          AssumedPlan plan =
              new AssumedPlan(
                  pod,
                  name,
                  a.gpuIds(),
                  a.hcaIds(),
                  a.worst(),
                  request.policy(),
                  now,
                  now.plus(ttl));
          result[0] = new Assumption(r, plan);
          Map<String, AssumedPlan> plans = new LinkedHashMap<>(entry.assumed());
          plans.put(pod.uid(), plan);
          assumedNode.put(pod.uid(), name);
          return entry.withAssumed(plans);
        });
    return Optional.ofNullable(result[0]);
  }

  /**
   * Restores a plan found on a pod (written by an earlier leader) when the agent has not reported
   * the pod's devices yet; it expires {@code ttl} after it was planned.
   */
  public void restorePlan(AssumedPlan plan) {
    if (plan.expiresAt().isBefore(clock.instant()) || assumedNode.containsKey(plan.pod().uid())) {
      return;
    }
    nodes.computeIfPresent(
        plan.node(),
        (name, entry) -> {
          if (entry.reports(plan.pod().uid()) || entry.assumed().containsKey(plan.pod().uid())) {
            return entry;
          }
          Map<String, AssumedPlan> plans = new LinkedHashMap<>(entry.assumed());
          plans.put(plan.pod().uid(), plan);
          assumedNode.put(plan.pod().uid(), name);
          return entry.withAssumed(plans);
        });
  }

  /** Ends the pod's assumption, if any. */
  public boolean release(String uid) {
    String node = assumedNode.remove(uid);
    if (node == null) {
      return false;
    }
    nodes.computeIfPresent(node, (name, entry) -> entry.without(p -> p.pod().uid().equals(uid)));
    return true;
  }

  /** Ends assumptions whose TTL passed; returns how many. */
  public int expire() {
    Instant now = clock.instant();
    int[] count = new int[1];
    for (String name : nodes.names()) {
      nodes.computeIfPresent(
          name,
          (n, entry) ->
              entry.without(
                  p -> {
                    boolean drop = p.expiresAt().isBefore(now);
                    if (drop) {
                      assumedNode.remove(p.pod().uid(), n);
                      count[0]++;
                    }
                    return drop;
                  }));
    }
    return count[0];
  }

  /** Every assumed plan, for inspection. */
  public Collection<AssumedPlan> assumedPlans() {
    List<AssumedPlan> out = new ArrayList<>();
    nodes.values().forEach(e -> out.addAll(e.assumed().values()));
    return out;
  }
}
