package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.claims.ClaimSatisfiability.NodeOffer;
import dev.tandem.api.claims.ClaimSatisfiability.Unsatisfiable;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which claims no node can ever be given, and what the report says, on fixture topologies. */
class ClaimSatisfiabilityTest {

  private static final String SWITCH = DraAttributes.PCIE_SWITCH;

  private static List<NodeOffer> nodes(Machine... machines) {
    return Arrays.stream(machines)
        .map(m -> new NodeOffer(m.nodeName(), NodeDevices.of(m)))
        .toList();
  }

  /** g GPUs and h HCAs, all under one value of the attribute: a hand-written claim. */
  private static DeviceClaimSpec oneGroup(int gpus, int hcas, String attribute) {
    return new DeviceClaimSpec(
        List.of(
            ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, gpus),
            ClaimRequest.exactly("hcas", ClaimGenerator.HCA_CLASS, hcas)),
        List.of(new MatchConstraint(attribute, List.of("gpus", "hcas"))));
  }

  private static DeviceClaimSpec generated(int gpus, int hcas, Alignment alignment) {
    return ClaimGenerator.claim(
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, AlignmentMode.REQUIRED)));
  }

  @Test
  @DisplayName("the generated 4+4 switch claim fits an HGX H100 (one GPU and one HCA per switch)")
  void generatedClaimIsSatisfiable() {
    assertEquals(
        Optional.empty(),
        ClaimSatisfiability.judge(
            generated(4, 4, Alignment.SWITCH), nodes(RealMachines.hgxH100EightNic())));
  }

  @Test
  @DisplayName(
      "4 GPUs + 4 HCAs under one pcieSwitch on an HGX H100: reported with the largest group and"
          + " the generated claim")
  void oneSwitchForFourPairsIsReported() {
    Unsatisfiable u =
        ClaimSatisfiability.judge(oneGroup(4, 4, SWITCH), nodes(RealMachines.hgxH100EightNic()))
            .orElseThrow();
    String message = u.message("gpu-hca");
    assertTrue(
        message.startsWith(
            "claim gpu-hca: constraint matchAttribute tandem.dev/pcieSwitch on [gpus, hcas] asks"
                + " 4 GPUs and 4 HCAs with one value of tandem.dev/pcieSwitch and no node has"
                + " that; the most under one value is 1 GPU and 1 HCA (hgx-h100-8nic, "),
        message);
    assertTrue(
        message.endsWith("`./tandem claim --gpus 4 --hcas 4 --alignment switch` writes that claim"),
        message);
  }

  @Test
  @DisplayName("a claim some node can be given is not reported, whichever node cannot")
  void oneNodeThatFitsIsEnough() {
    Machine big = TestMachines.machine("big", new Switch(0, 4, 4));
    assertEquals(
        Optional.empty(),
        ClaimSatisfiability.judge(
            oneGroup(4, 4, SWITCH), nodes(RealMachines.hgxH100EightNic(), big)));
  }

  @Test
  @DisplayName("more GPUs than any node has: the most any node has, and where")
  void tooManyGpus() {
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 9)), List.of());
    assertEquals(
        "claim big: its requests ask for 9 GPUs and no node has that many; the most is 8"
            + " (hgx-h100-8nic)",
        ClaimSatisfiability.judge(claim, nodes(RealMachines.hgxH100EightNic()))
            .orElseThrow()
            .message("big"));
  }

  @Test
  @DisplayName(
      "HCAs alone are never reported short: the shared mode may give one HCA to several requests")
  void hcasAloneAreNotJudged() {
    assertEquals(
        Optional.empty(),
        ClaimSatisfiability.judge(oneGroup(1, 4, SWITCH), nodes(RealMachines.hgxH100EightNic())));
  }

  @Test
  @DisplayName("no node known: nothing to judge by, nothing reported")
  void noNodeNoReport() {
    assertEquals(Optional.empty(), ClaimSatisfiability.judge(oneGroup(4, 4, SWITCH), List.of()));
  }

  @Test
  @DisplayName("each class and constraint fits some node, the whole claim none: said so")
  void notTogether() {
    DeviceClaimSpec claim =
        new DeviceClaimSpec(
            List.of(
                ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 2),
                ClaimRequest.exactly("hcas", ClaimGenerator.HCA_CLASS, 1)),
            List.of(new MatchConstraint(SWITCH, List.of("gpus"))));
    Machine twoGpus = TestMachines.machine("two-gpus", new Switch(0, 2, 0));
    Machine onePair = TestMachines.machine("one-pair", new Switch(0, 1, 1));
    assertEquals(
        "claim c: no node has all it asks together (each class and each constraint alone fits"
            + " some node)",
        ClaimSatisfiability.judge(claim, nodes(twoGpus, onePair)).orElseThrow().message("c"));
  }
}
