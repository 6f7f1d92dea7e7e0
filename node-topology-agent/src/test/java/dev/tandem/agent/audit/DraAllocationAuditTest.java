package dev.tandem.agent.audit;

import static dev.tandem.agent.audit.AllocationAuditTest.GPU;
import static dev.tandem.agent.audit.AllocationAuditTest.HCA;
import static dev.tandem.agent.audit.AllocationAuditTest.facts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.podresources.ClaimDevice;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The audit of devices pods hold through DRA ResourceClaims (docs/agent.md). */
class DraAllocationAuditTest {

  private static final String NODE = "gpu-1";
  private static final String NVIDIA = "gpu.nvidia.com";

  private final Machine machine = TestMachines.twoSwitchesAndLoneHca(NODE);
  private final AllocationAudit audit =
      new AllocationAudit(AlignmentPolicy.DEFAULT, ResourceNames.DEFAULT, "tandem.dev");

  private static ClaimDevice tandem(String claim, String device) {
    return new ClaimDevice("ml", claim, "tandem.dev", NODE, device);
  }

  private static PodDevices claimed(String pod, String container, ClaimDevice... devices) {
    return new PodDevices("ml", pod, container, Map.of(), List.of(devices));
  }

  private AuditReport run(List<PodDevices> listed, Map<String, String> pciBusIds, PodFacts pod) {
    return audit.audit(listed, Map.of(pod.key(), pod), machine, MigLayout.NONE, pciBusIds);
  }

  @Test
  @DisplayName(
      "a pod whose GPUs and HCA come from a claim of Tandem's driver is audited by the devices' names, its claim listed per resource with the tree's ids")
  void tandemClaim() {
    AuditReport r =
        run(
            List.of(
                claimed(
                    "g",
                    "main",
                    tandem("g-devices", "gpu-a0"),
                    tandem("g-devices", "gpu-a1"),
                    tandem("g-devices", "mlx5-0"))),
            Map.of(),
            facts("g", null, 0, 0));

    assertEquals(
        List.of(new AuditEntry("uid-g", "ml", "g", "PIX", "switch/required", true)), r.audit());
    assertEquals(
        List.of(
            new AllocationEntry(
                "uid-g",
                "ml",
                "g",
                "main",
                GPU,
                List.of("GPU-a0", "GPU-a1"),
                true,
                "ml/g-devices",
                "tandem.dev"),
            new AllocationEntry(
                "uid-g",
                "ml",
                "g",
                "main",
                HCA,
                List.of("mlx5_0"),
                true,
                "ml/g-devices",
                "tandem.dev")),
        r.allocations());
    assertEquals(List.of(), r.notes());
  }

  @Test
  @DisplayName(
      "a claim's devices apart beyond the policy are a violation with the device plugin's event message")
  void misalignedClaim() {
    AuditReport r =
        run(
            List.of(
                claimed("h", "main", tandem("h-devices", "gpu-b0"), tandem("h-devices", "mlx5-0"))),
            Map.of(),
            facts("h", null, 0, 0));

    Violation v = r.violations().get(0);
    assertEquals(List.of("GPU-b0", "mlx5_0", Locality.SYS), List.of(v.gpu(), v.hca(), v.worst()));
    assertTrue(
        v.message()
            .startsWith("GPU-b0 and mlx5_0 are SYS apart; tandem.dev/alignment=switch allows PXB"),
        v.message());
  }

  @Test
  @DisplayName(
      "GPUs from the device plugin and HCAs from a claim are audited together; the claim is listed once though two containers hold it")
  void mixedAndShared() {
    PodDevices main =
        new PodDevices(
            "ml", "m", "main", Map.of(GPU, List.of("GPU-b0")), List.of(tandem("m-hca", "mlx5-2")));
    AuditReport r =
        run(
            List.of(main, claimed("m", "sidecar", tandem("m-hca", "mlx5-2"))),
            Map.of(),
            facts("m", null, 1, 0));

    assertEquals("PIX", r.audit().get(0).worstLocality());
    assertEquals(
        1,
        r.allocations().stream().filter(AllocationEntry::throughClaim).count(),
        r.allocations()::toString);
  }

  @Test
  @DisplayName(
      "another driver's GPU is read through the pciBusID its ResourceSlice publishes; without one it is not governed and listed under its driver")
  void otherDriver() {
    ClaimDevice nvidia = new ClaimDevice("ml", "n-gpu", NVIDIA, NODE, "gpu-0");
    List<PodDevices> listed = List.of(claimed("n", "main", nvidia, tandem("n-hca", "mlx5-0")));
    String address = machine.device("GPU-b0").orElseThrow().address().toString();

    AuditReport mapped =
        run(
            listed,
            Map.of(ClaimDeviceMapping.key(NVIDIA, NODE, "gpu-0"), address),
            facts("n", null, 0, 0));
    assertEquals("SYS", mapped.audit().get(0).worstLocality());
    assertEquals("GPU-b0", mapped.violations().get(0).gpu());

    AuditReport unmapped = run(listed, Map.of(), facts("n", null, 0, 0));
    assertEquals(List.of(), unmapped.audit());
    assertEquals(
        new AllocationEntry(
            "uid-n",
            "ml",
            "n",
            "main",
            NVIDIA,
            List.of("gpu.nvidia.com/gpu-1/gpu-0"),
            true,
            "ml/n-gpu",
            NVIDIA),
        unmapped.allocations().get(0));
    assertEquals(List.of(), unmapped.notes(), "another driver's devices are not Tandem's to note");
  }

  @Test
  @DisplayName(
      "a device of Tandem's driver that is not in the tree is noted, naming it and its claim")
  void unknownTandemDevice() {
    AuditReport r =
        run(
            List.of(claimed("u", "main", tandem("u-devices", "mlx5-9"))),
            Map.of(),
            facts("u", null, 0, 0));
    assertEquals(1, r.notes().size());
    assertTrue(
        r.notes().get(0).contains("tandem.dev/gpu-1/mlx5-9 of claim ml/u-devices"),
        r.notes()::toString);
  }
}
