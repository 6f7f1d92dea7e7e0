package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaim;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ClaimGeneratorTest {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private static AllocationRequest shape(int gpus, int hcas, Alignment a, AlignmentMode m) {
    return new AllocationRequest(gpus, hcas, new AlignmentPolicy(a, m));
  }

  private static DeviceClaimSpec required(int gpus, int hcas) {
    return ClaimGenerator.claim(shape(gpus, hcas, Alignment.SWITCH, AlignmentMode.REQUIRED));
  }

  @Test
  void onePairIsOneConstraintOverBothRequests() {
    DeviceClaimSpec claim = required(1, 1);
    assertEquals(
        List.of(
            ClaimRequest.exactly("gpu-1", ClaimGenerator.GPU_CLASS, 1),
            ClaimRequest.exactly("hca-1", ClaimGenerator.HCA_CLASS, 1)),
        claim.requests());
    assertEquals(
        List.of(new MatchConstraint("tandem.dev/pcieSwitch", List.of("gpu-1", "hca-1"))),
        claim.constraints());
  }

  @Test
  void twoPairsJoinTheFirstGroupOrOpenASecond() {
    DeviceClaimSpec claim = required(2, 3);
    assertEquals(
        List.of("gpu-1", "hca-1", "gpu-2", "hca-2", "hca-3"),
        claim.requests().stream().map(ClaimRequest::name).toList());
    assertEquals(
        List.of("with-gpu-1", "new"),
        claim.requests().get(2).choices().stream().map(DeviceChoice::name).toList());
    assertEquals(
        List.of("with-gpu-2", "with-gpu-1"),
        claim.requests().get(3).choices().stream().map(DeviceChoice::name).toList());
    String key = "tandem.dev/pcieSwitch";
    assertEquals(
        List.of(
            new MatchConstraint(
                key,
                List.of(
                    "gpu-1", "hca-1", "gpu-2/with-gpu-1", "hca-2/with-gpu-1", "hca-3/with-gpu-1")),
            new MatchConstraint(key, List.of("gpu-2", "hca-2/with-gpu-2", "hca-3/with-gpu-2")),
            new MatchConstraint(key, List.of("gpu-2/new", "hca-2"))),
        claim.constraints());
  }

  @Test
  void everyShapeUpToEightAndEightFitsTheApiWithValidNames() {
    for (Alignment a : Alignment.values()) {
      for (AlignmentMode m : AlignmentMode.values()) {
        for (int g = 0; g <= 8; g++) {
          for (int h = g == 0 ? 1 : 0; h <= 8; h++) {
            DeviceClaimSpec claim = ClaimGenerator.claim(shape(g, h, a, m));
            String what = g + "+" + h + " " + a + "/" + m;
            assertEquals(List.of(), ClaimLimits.violations(claim), what);
            for (ClaimRequest r : claim.requests()) {
              assertTrue(DNS_LABEL.matcher(r.name()).matches(), what);
              r.choices().stream()
                  .filter(c -> c.name() != null)
                  .forEach(c -> assertTrue(DNS_LABEL.matcher(c.name()).matches(), what));
            }
            int gpus = devices(claim, ClaimGenerator.GPU_CLASS);
            assertEquals(g, gpus, what);
            assertEquals(h, devices(claim, ClaimGenerator.HCA_CLASS), what);
          }
        }
      }
    }
  }

  private static int devices(DeviceClaimSpec claim, String deviceClass) {
    return claim.requests().stream()
        .mapToInt(
            r -> {
              List<Integer> counts =
                  r.choices().stream()
                      .filter(c -> c.deviceClass().equals(deviceClass))
                      .map(DeviceChoice::count)
                      .distinct()
                      .toList();
              assertTrue(counts.size() <= 1, "alternatives of " + r.name() + " differ in count");
              return counts.isEmpty() ? 0 : counts.get(0);
            })
        .sum();
  }

  @Test
  void preferredEndsEveryRequestWithAnyAndNamesNoRequestWhole() {
    DeviceClaimSpec claim =
        ClaimGenerator.claim(shape(8, 8, Alignment.ROOT_COMPLEX, AlignmentMode.PREFERRED));
    for (ClaimRequest r : claim.requests()) {
      List<DeviceChoice> choices = r.choices();
      assertEquals(ClaimGenerator.ANY, choices.get(choices.size() - 1).name(), r.name());
    }
    claim.constraints().forEach(c -> assertEquals("tandem.dev/rootComplex", c.attribute()));
    claim.constraints().stream()
        .flatMap(c -> c.requests().stream())
        .forEach(ref -> assertTrue(ref.contains("/") && !ref.endsWith("/any"), ref));
  }

  @Test
  void noneAndSingleKindsAreCountsWithoutConstraints() {
    DeviceClaimSpec none =
        ClaimGenerator.claim(shape(4, 4, Alignment.NONE, AlignmentMode.REQUIRED));
    assertEquals(
        List.of(
            ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 4),
            ClaimRequest.exactly("hcas", ClaimGenerator.HCA_CLASS, 4)),
        none.requests());
    assertEquals(List.of(), none.constraints());
    DeviceClaimSpec gpus = required(8, 0);
    assertEquals(
        List.of(ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 8)), gpus.requests());
  }

  @Test
  void inexpressibleShapesNameTheNearest() {
    InexpressibleClaimException pairs =
        assertThrows(InexpressibleClaimException.class, () -> required(9, 12));
    assertEquals(
        "9 GPUs + 12 HCAs with alignment switch/required cannot be expressed as one claim: the"
            + " pairing needs 9 alternatives on a request and the API allows 8; nearest"
            + " expressible: 8 GPUs + 12 HCAs switch/required, 9 GPUs + 12 HCAs switch/preferred",
        pairs.getMessage());
    InexpressibleClaimException devices =
        assertThrows(
            InexpressibleClaimException.class,
            () -> ClaimGenerator.claim(shape(4, 30, Alignment.NONE, AlignmentMode.REQUIRED)));
    assertTrue(
        devices.getMessage().contains("34 devices")
            && devices.getMessage().endsWith("nearest expressible: 4 GPUs + 28 HCAs none/required"),
        devices.getMessage());
    assertThrows(InexpressibleClaimException.class, () -> required(0, 0));
  }

  @Test
  void templateCarriesRequestsAlternativesAndConstraints() {
    DeviceClaim devices = ClaimTemplates.devices(required(2, 2));
    assertEquals("gpu-1", devices.getRequests().get(0).getName());
    assertEquals("tandem-gpu", devices.getRequests().get(0).getExactly().getDeviceClassName());
    assertEquals(1L, devices.getRequests().get(0).getExactly().getCount());
    assertEquals("ExactCount", devices.getRequests().get(0).getExactly().getAllocationMode());
    assertEquals(
        List.of("with-gpu-1", "new"),
        devices.getRequests().get(2).getFirstAvailable().stream().map(s -> s.getName()).toList());
    assertEquals("tandem.dev/pcieSwitch", devices.getConstraints().get(0).getMatchAttribute());
    assertEquals(List.of("gpu-2/new", "hca-2"), devices.getConstraints().get(2).getRequests());
    assertEquals(
        "tandem-4g4h-switch",
        ClaimTemplates.template("tandem-4g4h-switch", null, required(4, 4))
            .getMetadata()
            .getName());
  }
}
