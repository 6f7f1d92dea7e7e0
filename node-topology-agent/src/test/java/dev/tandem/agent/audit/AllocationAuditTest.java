package dev.tandem.agent.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.rail.Rails;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AllocationAuditTest {

  static final String GPU = "nvidia.com/gpu";
  static final String HCA = "rdma/hca";

  private final Machine machine = TestMachines.twoSwitchesAndLoneHca("gpu-1");
  private final AllocationAudit audit =
      new AllocationAudit(AlignmentPolicy.DEFAULT, ResourceNames.DEFAULT);

  static PodFacts facts(String name, Map<String, String> annotations, long gpus, long hcas) {
    Map<String, Long> limits = new HashMap<>();
    if (gpus > 0) {
      limits.put(GPU, gpus);
    }
    if (hcas > 0) {
      limits.put(HCA, hcas);
    }
    return new PodFacts("uid-" + name, "ml", name, annotations, Map.of("main", limits));
  }

  static PodDevices held(String name, List<String> gpus, List<String> hcas) {
    Map<String, List<String>> d = new HashMap<>();
    if (!gpus.isEmpty()) {
      d.put(GPU, gpus);
    }
    if (!hcas.isEmpty()) {
      d.put(HCA, hcas);
    }
    return new PodDevices("ml", name, "main", d);
  }

  private AuditReport run(List<PodDevices> listed, PodFacts... pods) {
    return run(machine, listed, pods);
  }

  private AuditReport run(Machine on, List<PodDevices> listed, PodFacts... pods) {
    Map<String, PodFacts> byKey = new HashMap<>();
    for (PodFacts p : pods) {
      byKey.put(p.key(), p);
    }
    return audit.audit(listed, byKey, on);
  }

  private static void assertAllAudited(AuditReport r) {
    assertTrue(
        r.notes().stream().noneMatch(n -> n.contains("not audited")),
        "every id names a device of the tree: " + r.notes());
  }

  @Test
  @DisplayName("GPUs and HCA under one switch are PIX and meet the default switch policy")
  void aligned() {
    AuditReport r =
        run(
            List.of(held("a", List.of("GPU-a0", "GPU-a1"), List.of("mlx5_0"))),
            facts("a", null, 2, 1));
    assertEquals(
        List.of(new AuditEntry("uid-a", "ml", "a", "PIX", "switch/required", true)), r.audit());
    assertEquals(List.of(), r.violations());
    assertEquals(
        List.of(
            new AllocationEntry("uid-a", "ml", "a", "main", GPU, List.of("GPU-a0", "GPU-a1"), true),
            new AllocationEntry("uid-a", "ml", "a", "main", HCA, List.of("mlx5_0"), true)),
        r.allocations());
  }

  @Test
  @DisplayName(
      "the worst of each GPU's nearest HCA and each HCA's nearest GPU is reported, with an event message")
  void crossSocket() {
    AuditReport r =
        run(
            List.of(held("b", List.of("GPU-a0", "GPU-b0"), List.of("mlx5_0"))),
            facts("b", null, 2, 1));
    assertEquals("SYS", r.audit().get(0).worstLocality());
    Violation v = r.violations().get(0);
    assertEquals(List.of("GPU-b0", "mlx5_0", Locality.SYS), List.of(v.gpu(), v.hca(), v.worst()));
    assertTrue(
        v.message()
            .startsWith("GPU-b0 and mlx5_0 are SYS apart; tandem.dev/alignment=switch allows PXB"),
        v.message());
  }

  @Test
  @DisplayName("an HCA that serves no GPU closely counts too (HCA side of the worst)")
  void hcaSide() {
    AuditReport r =
        run(
            List.of(held("c", List.of("GPU-a0"), List.of("mlx5_0", "mlx5_1"))),
            facts("c", null, 1, 2));
    assertEquals("NODE", r.audit().get(0).worstLocality());
    assertEquals("mlx5_1", r.violations().get(0).hca());
  }

  @Test
  @DisplayName(
      "an entry records the rails of the pod's HCAs ascending; a storage NIC adds none; none:"
          + " empty")
  void rails() {
    Machine dgx = Rails.byPciOrder(RealMachines.dgxA100("gpu-1")).machine();
    AuditReport r =
        run(
            dgx,
            List.of(
                held("r", List.of("GPU-2", "GPU-3"), List.of("mlx5_3", "mlx5_2", "mlx5_8")),
                held("s", List.of("GPU-0"), List.of("mlx5_9"))),
            facts("r", null, 2, 3),
            facts("s", null, 1, 1));
    assertEquals(List.of(2, 3), r.audit().get(0).rails());
    assertEquals(List.of(), r.audit().get(1).rails());
    assertEquals(
        List.of(),
        run(List.of(held("a", List.of("GPU-a0"), List.of("mlx5_0"))), facts("a", null, 1, 1))
            .audit()
            .get(0)
            .rails(),
        "a tree without rails");
  }

  @Test
  @DisplayName("the pod's annotation sets the policy: numa allows NODE")
  void annotationPolicy() {
    AuditReport r =
        run(
            List.of(held("d", List.of("GPU-a0"), List.of("mlx5_1"))),
            facts("d", Map.of("tandem.dev/alignment", "numa"), 1, 1));
    assertEquals(
        new AuditEntry("uid-d", "ml", "d", "NODE", "numa/required", true), r.audit().get(0));
    assertEquals(List.of(), r.violations());
  }

  @Test
  @DisplayName(
      "the policy the plan records wins (a node-class default the agent cannot see); an unreadable"
          + " one is a note and the annotations decide")
  void plannedPolicy() {
    String plan =
        "{\"node\":\"gpu-1\",\"gpus\":[\"GPU-a0\"],\"hcas\":[\"mlx5_1\"],\"locality\":\"NODE\","
            + "\"policy\":\"numa/required\",\"plannedAt\":\"2026-11-28T03:00:00Z\"}";
    AuditReport r =
        run(
            List.of(held("p", List.of("GPU-a0"), List.of("mlx5_1"))),
            facts("p", Map.of("tandem.dev/plan", plan), 1, 1));
    assertEquals(
        new AuditEntry("uid-p", "ml", "p", "NODE", "numa/required", true), r.audit().get(0));
    assertEquals(List.of(), r.violations());

    AuditReport bad =
        run(
            List.of(held("q", List.of("GPU-a0"), List.of("mlx5_1"))),
            facts("q", Map.of("tandem.dev/plan", plan.replace("numa/", "nearby/")), 1, 1));
    assertEquals("switch/required", bad.audit().get(0).policy());
    assertEquals(1, bad.violations().size());
    assertTrue(
        bad.notes().stream()
            .anyMatch(n -> n.startsWith("pod ml/q: its tandem.dev/plan names no policy")),
        bad.notes().toString());
  }

  @Test
  @DisplayName(
      "fewer devices than the limit is allocation in progress: complete=false, no audit yet")
  void partial() {
    AuditReport r = run(List.of(held("e", List.of(), List.of("mlx5_0"))), facts("e", null, 2, 1));
    assertEquals(
        List.of(
            new AllocationEntry("uid-e", "ml", "e", "main", GPU, List.of(), false),
            new AllocationEntry("uid-e", "ml", "e", "main", HCA, List.of("mlx5_0"), true)),
        r.allocations());
    assertEquals(List.of(), r.audit());

    AuditReport half =
        run(List.of(held("f", List.of("GPU-a0"), List.of("mlx5_2"))), facts("f", null, 2, 1));
    assertEquals(false, half.allocations().get(0).complete());
    assertEquals(List.of(), half.violations());
  }

  @Test
  @DisplayName("a pod whose object is not known yet is listed as in progress with an empty uid")
  void unknownPod() {
    AuditReport r = run(List.of(held("g", List.of("GPU-a0"), List.of("mlx5_2"))));
    assertEquals(2, r.allocations().size());
    assertTrue(r.allocations().stream().allMatch(a -> !a.complete() && a.podUid().isEmpty()));
    assertEquals(List.of(), r.audit());
  }

  @Test
  @DisplayName("device ids not in the topology and invalid annotations become notes, not failures")
  void notes() {
    AuditReport r =
        run(
            List.of(held("h", List.of("GPU-zz", "GPU-a0"), List.of("mlx5_0"))),
            facts("h", Map.of("tandem.dev/alignment", "rack"), 2, 1));
    assertEquals("PIX", r.audit().get(0).worstLocality());
    assertEquals("switch/required", r.audit().get(0).policy());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("GPU-zz")), r.notes().toString());
    assertTrue(r.notes().stream().anyMatch(n -> n.contains("rack")), r.notes().toString());
  }

  @Test
  @DisplayName("without a topology yet, allocations are still reported but nothing is audited")
  void noMachine() {
    AuditReport r =
        audit.audit(
            List.of(held("i", List.of("GPU-a0"), List.of("mlx5_2"))),
            Map.of("ml/i", facts("i", null, 1, 1)),
            null);
    assertEquals(2, r.allocations().size());
    assertEquals(List.of(), r.audit());
  }

  @Test
  @DisplayName(
      "another HCA resource name: the audit reads the configured name, not rdma/hca, from PodResources")
  void configuredResourceName() {
    String shared = "rdma/shared_hca";
    AllocationAudit configured =
        new AllocationAudit(AlignmentPolicy.DEFAULT, new ResourceNames(GPU, shared));
    PodFacts pod =
        new PodFacts(
            "uid-j", "ml", "j", null, Map.of("main", Map.of(GPU, 2L, shared, 1L, HCA, 1L)));
    PodDevices devices =
        new PodDevices(
            "ml",
            "j",
            "main",
            Map.of(GPU, List.of("GPU-a0", "GPU-a1"), shared, List.of("mlx5_0"), HCA, List.of()));

    AuditReport r = configured.audit(List.of(devices), Map.of(pod.key(), pod), machine);

    assertEquals(
        List.of(new AuditEntry("uid-j", "ml", "j", "PIX", "switch/required", true)), r.audit());
    assertEquals(
        List.of(
            new AllocationEntry("uid-j", "ml", "j", "main", GPU, List.of("GPU-a0", "GPU-a1"), true),
            new AllocationEntry("uid-j", "ml", "j", "main", HCA, List.of(), false),
            new AllocationEntry("uid-j", "ml", "j", "main", shared, List.of("mlx5_0"), true)),
        r.allocations(),
        "rdma/hca is not governed here: its missing device does not hold the audit back");
    AuditReport byDefault = audit.audit(List.of(devices), Map.of(pod.key(), pod), machine);
    assertEquals(List.of(), byDefault.audit(), "with rdma/hca governed, the pod is in progress");
  }

  @Test
  @DisplayName(
      "shared-mode slot ids are audited as their HCA: two slots of mlx5_0 are PIX, a slot of the"
          + " other socket's HCA is SYS and the violation names that HCA")
  void sharedSlots() {
    AuditReport near =
        run(
            List.of(held("k", List.of("GPU-a0"), List.of("mlx5_0-slot-3", "mlx5_0-slot-7"))),
            facts("k", null, 1, 2));
    assertEquals(
        List.of(new AuditEntry("uid-k", "ml", "k", "PIX", "switch/required", true)), near.audit());
    assertAllAudited(near);

    AuditReport far =
        run(
            List.of(held("l", List.of("GPU-a0"), List.of("mlx5_2-slot-0"))),
            facts("l", null, 1, 1));
    assertEquals("SYS", far.audit().get(0).worstLocality());
    assertEquals(
        List.of("GPU-a0", "mlx5_2"),
        List.of(far.violations().get(0).gpu(), far.violations().get(0).hca()));
    assertAllAudited(far);
  }

  @Test
  @DisplayName(
      "VF ids (PCI addresses, sriov mode) are audited as the VF: a VF of mlx5_0 is PIX to its"
          + " switch's GPU, a VF of mlx5_2 is SYS and the violation names the VF, not its PF")
  void virtualFunctions() {
    Machine vfs =
        TestMachines.withVirtualFunctions(
            TestMachines.withVirtualFunctions(machine, "mlx5_0", "mlx5_3", "mlx5_4"),
            "mlx5_2",
            "mlx5_5");
    AuditReport near =
        run(
            vfs,
            List.of(held("m", List.of("GPU-a1"), List.of("0000:15:00.2"))),
            facts("m", null, 1, 1));
    assertEquals(
        List.of(new AuditEntry("uid-m", "ml", "m", "PIX", "switch/required", true)), near.audit());
    assertAllAudited(near);

    AuditReport far =
        run(
            vfs,
            List.of(held("n", List.of("GPU-a0"), List.of("0000:95:00.1"))),
            facts("n", null, 1, 1));
    assertEquals("SYS", far.audit().get(0).worstLocality());
    assertEquals("mlx5_5", far.violations().get(0).hca());
    assertAllAudited(far);
  }

  @Test
  @DisplayName(
      "time-sliced replica ids are audited as their GPU: two replicas of one GPU complete a"
          + " 2-GPU limit and count as one GPU; a replica of the other socket's GPU is SYS")
  void timeSlicedReplicas() {
    AuditReport near =
        run(
            List.of(held("o", List.of("GPU-a0::0", "GPU-a0::3"), List.of("mlx5_0"))),
            facts("o", null, 2, 1));
    assertEquals(
        List.of(new AuditEntry("uid-o", "ml", "o", "PIX", "switch/required", true)), near.audit());
    assertTrue(near.allocations().stream().allMatch(AllocationEntry::complete));
    assertAllAudited(near);

    AuditReport far =
        run(
            List.of(held("q", List.of("GPU-a0::1", "GPU-b1::2"), List.of("mlx5_0"))),
            facts("q", null, 2, 1));
    assertEquals("SYS", far.audit().get(0).worstLocality());
    assertEquals("GPU-b1", far.violations().get(0).gpu());
    assertAllAudited(far);
  }
}
