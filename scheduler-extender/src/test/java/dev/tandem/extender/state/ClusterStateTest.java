package dev.tandem.extender.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName(
    "cluster state: free devices = healthy - reported - assumed; assumptions end as specified")
class ClusterStateTest {

  private static final AllocationRequest ONE_PAIR =
      new AllocationRequest(1, 1, AlignmentPolicy.DEFAULT);

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-11-22T03:00:00Z"));
  private final Clock clock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now.get();
        }
      };

  private final ClusterParts cluster = ClusterParts.empty(clock, RecentPods.none(), null);
  private final Assumptions assumed = cluster.assumptions();

  private ClusterState state() {
    ClusterState s = cluster.state();
    s.putTopology(TestMachines.pixNode(), 1, List.of());
    return s;
  }

  private static PodRef pod(int i) {
    return new PodRef("ml", "p" + i, "uid-" + i);
  }

  @Test
  @DisplayName(
      "nodes of one shape hold one group layout whatever their device ids; another shape its own")
  void oneLayoutPerShape() {
    ClusterState s = cluster.state();
    TestMachines.Switch twoByTwo = new TestMachines.Switch(0, 2, 2);
    s.putTopology(TestMachines.machine("node-a", twoByTwo), 1, List.of());
    s.putTopology(TestMachines.machine("node-b", twoByTwo), 1, List.of());
    s.putTopology(TestMachines.machine("node-c", new TestMachines.Switch(0, 4, 4)), 1, List.of());
    NodeEntry a = s.node("node-a");
    NodeEntry b = s.node("node-b");
    assertNotEquals(a.machine().gpus().getFirst().id(), b.machine().gpus().getFirst().id());
    assertSame(a.index().layout(), b.index().layout());
    assertNotSame(a.index().layout(), s.node("node-c").index().layout());
  }

  @Test
  @DisplayName("an assumed plan takes its devices; release gives them back and bumps the version")
  void assumeAndRelease() {
    ClusterState s = state();
    long v0 = s.node("pix-node").version();
    AssumedPlan plan =
        assumed.assume("pix-node", pod(1), ONE_PAIR, Duration.ofMinutes(5)).orElseThrow().plan();
    assertEquals(1, plan.gpus().size());
    assertEquals(3, s.node("pix-node").free().freeUnits(DeviceKind.GPU));
    assertTrue(s.node("pix-node").version() > v0);
    assertTrue(assumed.release("uid-1"));
    assertEquals(4, s.node("pix-node").free().freeUnits(DeviceKind.GPU));
    assertEquals(0, assumed.count());
  }

  @Test
  @DisplayName(
      "the agent's report of the pod's allocation ends its assumption; its devices stay taken")
  void reportEndsAssumption() {
    ClusterState s = state();
    AssumedPlan plan =
        assumed.assume("pix-node", pod(1), ONE_PAIR, Duration.ofMinutes(5)).orElseThrow().plan();
    s.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.GPU, plan.gpus()),
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.HCA, plan.hcas())));
    assertEquals(0, assumed.count());
    assertTrue(s.node("pix-node").assumed().isEmpty());
    assertEquals(3, s.node("pix-node").free().freeUnits(DeviceKind.HCA));
  }

  @Test
  @DisplayName("an identical update (informer resync) keeps the version; a change bumps it")
  void resyncKeepsVersion() {
    ClusterState s = state();
    long v = s.node("pix-node").version();
    s.putTopology(TestMachines.pixNode(), 1, List.of());
    assertEquals(v, s.node("pix-node").version());
    s.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            new ReportedAllocation(
                "ml",
                "p",
                "u",
                "c",
                ResourceNames.GPU,
                List.of(TestMachines.pixNode().gpus().get(0).id()))));
    assertTrue(s.node("pix-node").version() > v);
  }

  @Test
  @DisplayName("assumptions expire after the TTL, and when the pod goes away")
  void expiry() {
    ClusterState s = state();
    assumed.assume("pix-node", pod(1), ONE_PAIR, Duration.ofMinutes(5));
    assumed.assume("pix-node", pod(2), ONE_PAIR, Duration.ofMinutes(10));
    now.set(now.get().plus(Duration.ofMinutes(6)));
    assertEquals(1, assumed.expire());
    assertEquals(1, assumed.count());
    s.podGone("uid-2");
    assertEquals(0, assumed.count());
    assertTrue(s.node("pix-node").assumed().isEmpty());
  }

  private static List<ReportedAllocation> holds(String uid, String gpu) {
    return List.of(new ReportedAllocation("ml", "p", uid, "main", ResourceNames.GPU, List.of(gpu)));
  }

  @Test
  @DisplayName(
      "a deleted pod's reported devices are free at once, though the agent still reports them")
  void goneFreesReportedDevices() {
    ClusterState s = state();
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    s.putTopology(TestMachines.pixNode(), 1, holds("uid-7", gpu));
    assertEquals(0, s.node("pix-node").free().free(gpu));
    long v = s.node("pix-node").version();
    s.podGone("uid-7");
    assertEquals(1, s.node("pix-node").free().free(gpu));
    assertTrue(s.node("pix-node").version() > v, "cached answers must not outlive the change");
    s.putTopology(TestMachines.pixNode(), 1, holds("uid-7", gpu));
    assertEquals(
        1, s.node("pix-node").free().free(gpu), "the agent's stale report must not take it back");
    s.putTopology(TestMachines.pixNode(), 1, List.of());
    assertEquals(1, s.node("pix-node").free().free(gpu));
  }

  @Test
  @DisplayName("a report that arrives after the pod went away does not take its devices")
  void reportAfterGone() {
    ClusterState s = state();
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    s.podGone("uid-8");
    s.putTopology(TestMachines.pixNode(), 1, holds("uid-8", gpu));
    assertEquals(1, s.node("pix-node").free().free(gpu));
    assertTrue(s.node("pix-node").allocations().isEmpty());
  }

  @Test
  @DisplayName(
      "a terminating pod keeps its reported devices (its containers may still run), loses its assumption")
  void terminatingKeepsDevices() {
    ClusterState s = state();
    String gpu = TestMachines.pixNode().gpus().get(0).id();
    s.putTopology(TestMachines.pixNode(), 1, holds("uid-7", gpu));
    assumed.assume("pix-node", pod(2), ONE_PAIR, Duration.ofMinutes(5));
    s.podTerminating("uid-7");
    s.podTerminating("uid-2");
    assertEquals(0, s.node("pix-node").free().free(gpu));
    assertEquals(0, assumed.count());
  }

  @Test
  @DisplayName(
      "shared HCAs: the node's advertised rdma/hca capacity gives the units per HCA, whichever comes first")
  void slotsFromCapacity() {
    ClusterState s = state();
    int hcas = TestMachines.pixNode().hcas().size();
    DeviceKind hca = DeviceKind.HCA;
    assertEquals(hcas, s.node("pix-node").free().freeUnits(hca));
    s.hcaCapacity("pix-node", 1000L * hcas);
    assertEquals(1000, s.node("pix-node").slotsPerHca());
    assertEquals(1000 * hcas, s.node("pix-node").free().freeUnits(hca));
    s.putTopology(TestMachines.pixNode(), DeviceUnits.UNCOUNTED, MigLayout.NONE, List.of());
    assertEquals(1000, s.node("pix-node").slotsPerHca(), "a NodeTopology update keeps the units");
    s.hcaCapacity("pix-node", hcas + 1);
    assertEquals(
        1, s.node("pix-node").slotsPerHca(), "uneven capacity: the units per HCA cannot be told");
    s.hcaCapacity("pix-2", 16);
    s.putTopology(
        TestMachines.machine(
            "pix-2", new TestMachines.Switch(0, 2, 2), new TestMachines.Switch(1, 2, 2)),
        DeviceUnits.UNCOUNTED,
        MigLayout.NONE,
        List.of());
    assertEquals(4, s.node("pix-2").slotsPerHca(), "capacity seen before the topology");
    s.hcaCapacity("pix-2", 0);
    assertEquals(1, s.node("pix-2").slotsPerHca());
  }

  private static DeviceUnits counted(Machine m, Map<String, List<String>> ids) {
    DeviceUnits.Count c = DeviceUnits.count(m, ResourceNames.DEFAULT, ids);
    assertEquals(List.of(), c.unplaced());
    return c.units();
  }

  private static List<String> slots(String hca, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(hca + "-slot-" + i);
    }
    return out;
  }

  @Test
  @DisplayName(
      "shared mode: the units the agent counted win over the capacity; reported slots take their"
          + " HCA's units")
  void sharedSlotsReported() {
    ClusterState s = cluster.state();
    var m = TestMachines.pixNode();
    List<String> offered = new ArrayList<>();
    m.hcas().forEach(h -> offered.addAll(slots(h.hca().ibDevice(), 4)));
    DeviceUnits units = counted(m, Map.of(ResourceNames.HCA, offered));
    s.hcaCapacity("pix-node", 1000L * m.hcas().size());
    String hca = m.hcas().get(0).id();
    s.putTopology(
        m,
        units,
        MigLayout.NONE,
        List.of(
            new ReportedAllocation(
                "ml",
                "p",
                "uid-3",
                "main",
                ResourceNames.HCA,
                List.of(hca + "-slot-1", hca + "-slot-2"))));
    assertEquals(2, s.node("pix-node").free().free(hca));
    assertEquals(4 * m.hcas().size() - 2, s.node("pix-node").free().freeUnits(DeviceKind.HCA));
  }

  @Test
  @DisplayName(
      "MIG: a GPU offered as MIG devices has a unit per MIG device; a reported MIG id takes a unit"
          + " of its GPU through the node's published MIG layout")
  void migDevicesReported() {
    ClusterState s = cluster.state();
    var m = TestMachines.pixNode();
    String gpu = m.gpus().get(0).id();
    List<String> migs = List.of("MIG-1", "MIG-2", "MIG-3");
    MigLayout mig = MigLayout.of(List.of(new MigEntry(gpu, migs)));
    DeviceUnits units =
        DeviceUnits.count(m, mig, ResourceNames.DEFAULT, Map.of(ResourceNames.GPU, migs)).units();
    List<ReportedAllocation> held =
        List.of(
            new ReportedAllocation(
                "ml", "p", "uid-9", "main", ResourceNames.GPU, List.of("MIG-2")));
    s.putTopology(m, units, mig, held);
    assertEquals(2, s.node("pix-node").free().free(gpu));
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.GPU));
    s.putTopology(m, units, MigLayout.NONE, held);
    assertEquals(
        3, s.node("pix-node").free().free(gpu), "without the layout the MIG id stands for nothing");
  }

  @Test
  @DisplayName(
      "a plan ends only when the report covers every kind it planned; meanwhile its unreported part"
          + " still counts, and nothing counts twice")
  void planHandOverPerKind() {
    ClusterState s = state();
    AllocationRequest twoPairs = new AllocationRequest(2, 2, AlignmentPolicy.DEFAULT);
    AssumedPlan plan =
        assumed.assume("pix-node", pod(1), twoPairs, Duration.ofMinutes(5)).orElseThrow().plan();
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.HCA));
    s.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.GPU, plan.gpus())));
    assertEquals(1, assumed.count(), "HCAs not reported yet: the plan stays");
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.GPU), "GPUs counted once");
    assertEquals(
        2, s.node("pix-node").free().freeUnits(DeviceKind.HCA), "planned HCAs still taken");
    s.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.GPU, plan.gpus()),
            new ReportedAllocation(
                "ml", "p1", "uid-1", "main", ResourceNames.HCA, List.of(plan.hcas().get(0)))));
    assertEquals(1, assumed.count(), "one HCA of two reported");
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.HCA));
    s.putTopology(
        TestMachines.pixNode(),
        1,
        List.of(
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.GPU, plan.gpus()),
            new ReportedAllocation("ml", "p1", "uid-1", "main", ResourceNames.HCA, plan.hcas())));
    assertEquals(0, assumed.count());
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.HCA));
    assertEquals(2, s.node("pix-node").free().freeUnits(DeviceKind.GPU));
  }

  @Test
  @DisplayName("sriov: a VF reported by its PCI address takes that VF")
  void vfReportedByPciAddress() {
    ClusterState s = cluster.state();
    var vm = TestMachines.vmWithVf("vm-1");
    var vf = vm.hcas().get(0);
    String address = vf.address().toString();
    s.putTopology(
        vm,
        counted(vm, Map.of(ResourceNames.HCA, List.of(address))),
        MigLayout.NONE,
        List.of(
            new ReportedAllocation(
                "ml", "p", "uid-5", "main", ResourceNames.HCA, List.of(address))));
    assertEquals(0, s.node("vm-1").free().freeUnits(DeviceKind.HCA));
    s.podGone("uid-5");
    assertEquals(1, s.node("vm-1").free().freeUnits(DeviceKind.HCA));
  }

  @Test
  @DisplayName("time-sliced GPUs: replicas count per GPU, and reported replicas take their GPU's")
  void timeSlicedGpus() {
    ClusterState s = cluster.state();
    var m = TestMachines.pixNode();
    List<String> replicas = new ArrayList<>();
    m.gpus().forEach(g -> List.of(0, 1, 2).forEach(r -> replicas.add(g.id() + "::" + r)));
    String gpu = m.gpus().get(0).id();
    s.putTopology(
        m,
        counted(m, Map.of(ResourceNames.GPU, replicas)),
        MigLayout.NONE,
        List.of(
            new ReportedAllocation(
                "ml", "p", "uid-6", "main", ResourceNames.GPU, List.of(gpu + "::0", gpu + "::2"))));
    assertEquals(1, s.node("pix-node").free().free(gpu));
    assertEquals(3 * m.gpus().size() - 2, s.node("pix-node").free().freeUnits(DeviceKind.GPU));
  }

  @Test
  @DisplayName("unknown node: empty; a full node: Infeasible, nothing assumed")
  void unknownAndFull() {
    ClusterState s = state();
    assertEquals(Optional.empty(), assumed.assume("nope", pod(1), ONE_PAIR, Duration.ofMinutes(1)));
    for (int i = 0; i < 4; i++) {
      assertTrue(
          assumed.assume("pix-node", pod(i), ONE_PAIR, Duration.ofMinutes(1)).orElseThrow().plan()
              != null);
    }
    assertTrue(
        assumed.assume("pix-node", pod(9), ONE_PAIR, Duration.ofMinutes(1)).orElseThrow().result()
            instanceof Infeasible);
    assertEquals(4, assumed.count());
  }

  @Test
  @DisplayName("hundreds of threads assuming at once never get the same device twice")
  void concurrentAssumptions() throws Exception {
    ClusterState s = state();
    s.putTopology(
        TestMachines.machine(
            "pix-2", new TestMachines.Switch(0, 2, 2), new TestMachines.Switch(1, 2, 2)),
        1,
        List.of());
    ExecutorService pool = Executors.newFixedThreadPool(32);
    CountDownLatch go = new CountDownLatch(1);
    ConcurrentLinkedQueue<AssumedPlan> plans = new ConcurrentLinkedQueue<>();
    List<Future<?>> done = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      int k = i;
      done.add(
          pool.submit(
              () -> {
                go.await();
                assumed
                    .assume(
                        k % 2 == 0 ? "pix-node" : "pix-2", pod(k), ONE_PAIR, Duration.ofMinutes(1))
                    .map(Assumption::plan)
                    .ifPresent(plans::add);
                if (k < 100 && k % 5 == 0) {
                  assumed.release("uid-" + k);
                  plans.removeIf(p -> p.pod().uid().equals("uid-" + k));
                }
                return null;
              }));
    }
    go.countDown();
    for (var f : done) {
      f.get(30, TimeUnit.SECONDS);
    }
    pool.shutdown();
    Set<String> taken = new HashSet<>();
    for (AssumedPlan p : plans) {
      for (String id : concat(p.gpus(), p.hcas())) {
        assertTrue(taken.add(p.node() + "/" + id), "device given twice: " + p.node() + "/" + id);
      }
    }
    assertEquals(8, plans.size());
    assertEquals(8, assumed.count());
    assertFalse(s.node("pix-node").free().freeUnits(DeviceKind.GPU) > 0);
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
