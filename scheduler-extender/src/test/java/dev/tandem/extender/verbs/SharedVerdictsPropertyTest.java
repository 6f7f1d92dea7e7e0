package dev.tandem.extender.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterParts;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.RecentPods;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;

/**
 * Nodes share their free states and the verdicts kept on them: through any sequence of binds,
 * releases, reports, pods gone and devices turning unhealthy, every filter and prioritize answer
 * for every node equals what the allocator answers, choosing devices, at that node's entry.
 */
class SharedVerdictsPropertyTest {

  private static final int STEPS = 40;

  /** Node name, tree and HCA slots: models repeated so that nodes share states, one shared. */
  private record Node(String name, Machine machine, int slots) {}

  /** What one try holds: the cluster, what it was told, and the verbs over it. */
  private static final class World {
    final Random random;
    final ClusterParts cluster = ClusterParts.empty(Clock.systemUTC(), RecentPods.none(), null);
    final ClusterState state = cluster.state();
    final List<Node> nodes = new ArrayList<>();
    final Map<String, List<ReportedAllocation>> reported = new LinkedHashMap<>();
    final Map<String, Boolean> unhealthy = new LinkedHashMap<>();
    final List<String> assumed = new ArrayList<>();
    final NodeEvaluator evaluator = new NodeEvaluator(10_000);
    final List<PodRequest> pods = new ArrayList<>();
    int uids;

    World(long seed) {
      random = new Random(seed);
      for (int i = 0; i < 4; i++) {
        add("pix-" + i, m -> TestMachines.machine(m, new Switch(0, 2, 2), new Switch(1, 2, 2)), 1);
      }
      for (int i = 0; i < 3; i++) {
        add("dgx-" + i, RealMachines::dgxA100, 1);
      }
      add("split-0", m -> TestMachines.machine(m, new Switch(0, 4, 0), new Switch(1, 0, 4)), 1);
      add("shared-0", m -> TestMachines.machine(m, new Switch(0, 2, 2), new Switch(1, 2, 2)), 2);
      for (int i = 0; i < 8; i++) {
        AlignmentPolicy policy =
            new AlignmentPolicy(
                Alignment.values()[random.nextInt(Alignment.values().length)],
                random.nextBoolean() ? AlignmentMode.REQUIRED : AlignmentMode.PREFERRED);
        AllocationRequest r = new AllocationRequest(random.nextInt(5), random.nextInt(5), policy);
        pods.add(new PodRequest(new PodRef("ml", "shape-" + i, "shape-" + i), r, null));
      }
    }

    private void add(String name, Function<String, Machine> model, int slots) {
      Node n = new Node(name, model.apply(name), slots);
      nodes.add(n);
      reported.put(name, new ArrayList<>());
      put(n);
    }

    void put(Node n) {
      List<Device> devices = new ArrayList<>();
      for (Device d : n.machine().devices()) {
        devices.add(d.withHealthy(!unhealthy.containsKey(n.name() + "/" + d.id())));
      }
      Machine m = new Machine(n.name(), n.machine().source(), n.machine().pcie(), devices);
      state.putTopology(m, n.slots(), List.copyOf(reported.get(n.name())));
    }

    Node anyNode() {
      return nodes.get(random.nextInt(nodes.size()));
    }

    PodRequest anyPod() {
      return pods.get(random.nextInt(pods.size()));
    }

    /** One change, chosen at random. */
    String step() {
      Node n = anyNode();
      switch (random.nextInt(6)) {
        case 0, 1 -> {
          String uid = "bound-" + uids++;
          cluster
              .assumptions()
              .assume(
                  n.name(), new PodRef("ml", uid, uid), anyPod().request(), Duration.ofHours(1));
          assumed.add(uid);
          return "bind " + uid + " on " + n.name();
        }
        case 2 -> {
          if (assumed.isEmpty()) {
            return "nothing to release";
          }
          String uid = assumed.remove(random.nextInt(assumed.size()));
          cluster.assumptions().release(uid);
          return "release " + uid;
        }
        case 3 -> {
          String uid = "running-" + uids++;
          reported.get(n.name()).addAll(someDevices(n, uid));
          put(n);
          return "report " + uid + " on " + n.name();
        }
        case 4 -> {
          List<ReportedAllocation> on = reported.get(n.name());
          if (on.isEmpty()) {
            return "nothing reported on " + n.name();
          }
          String uid = on.get(random.nextInt(on.size())).uid();
          on.removeIf(a -> a.uid().equals(uid));
          state.podGone(uid);
          return "gone " + uid + " from " + n.name();
        }
        default -> {
          Device d = n.machine().devices().get(random.nextInt(n.machine().devices().size()));
          String key = n.name() + "/" + d.id();
          if (unhealthy.remove(key) == null) {
            unhealthy.put(key, true);
          }
          put(n);
          return "health of " + key;
        }
      }
    }

    private List<ReportedAllocation> someDevices(Node n, String uid) {
      List<String> gpus = new ArrayList<>();
      List<String> hcas = new ArrayList<>();
      for (Device d : n.machine().devices()) {
        if (random.nextInt(4) == 0) {
          (d.kind() == DeviceKind.GPU ? gpus : hcas).add(d.id());
        }
      }
      return List.of(
          new ReportedAllocation("ml", uid, uid, "main", ResourceNames.GPU, gpus),
          new ReportedAllocation("ml", uid, uid, "main", ResourceNames.HCA, hcas));
    }

    /** Filter and prioritize of a pod over every node and one unknown name, checked per node. */
    void check(PodRequest pod, String context) {
      List<String> names = new ArrayList<>(nodes.stream().map(Node::name).toList());
      names.add("unknown");
      FilterVerdict v =
          new FilterVerb(evaluator)
              .verdict(
                  pod, CandidateNodes.of(state.directory(), names), AllocationBudget.UNLIMITED);
      int[] scores =
          new PrioritizeVerb(evaluator)
              .scores(pod, CandidateNodes.of(state.directory(), names), AllocationBudget.UNLIMITED);
      for (int i = 0; i < nodes.size(); i++) {
        NodeEntry e = state.node(names.get(i));
        Verdict expected = Verdict.of(e.allocator().allocate(pod.request(), e.free()));
        String at = context + ", " + pod.request() + " on " + names.get(i);
        boolean interested = pod.interested();
        assertEquals(!interested || expected.feasible(), v.passed()[i], at);
        if (interested && !expected.feasible()) {
          assertEquals(expected.refusal().reason(), v.reasons()[i], at);
          assertEquals(!expected.refusal().resolvable(), v.unresolvable()[i], at);
        }
        int score = interested && expected.feasible() ? Math.min(10, expected.score()) : 0;
        assertEquals(score, scores[i], at);
      }
    }
  }

  @Property(tries = 150)
  @Label("every answer of filter and prioritize is the allocator's at the node's current entry")
  void answersAreTheAllocators(@ForAll long seed) {
    World world = new World(seed);
    List<String> done = new ArrayList<>();
    for (int step = 0; step < STEPS; step++) {
      done.add(world.step());
      String context = "seed " + seed + " after " + done;
      for (int k = 0; k < 3; k++) {
        world.check(world.anyPod(), context);
      }
    }
  }
}
