package dev.tandem.api.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpecBuilder;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which claims are read for judgement, and which are left alone (never judged). */
class ClaimReadingTest {

  private static ResourceClaimSpec spec(DeviceClaimSpec claim) {
    return ClaimTemplates.template("t", null, claim).getSpec().getSpec();
  }

  private static DeviceClaimSpec generated() {
    return ClaimGenerator.claim(
        new AllocationRequest(
            3, 2, new AlignmentPolicy(Alignment.SWITCH, AlignmentMode.PREFERRED)));
  }

  /** A claim of 2 Tandem GPUs, its request changed by {@code edit}. */
  private static Optional<DeviceClaimSpec> twoGpus(Consumer<ExactDeviceRequest> edit) {
    ResourceClaimSpec spec =
        new ResourceClaimSpecBuilder()
            .withNewDevices()
            .addNewRequest()
            .withName("gpus")
            .withNewExactly()
            .withDeviceClassName(ClaimGenerator.GPU_CLASS)
            .withCount(2L)
            .endExactly()
            .endRequest()
            .endDevices()
            .build();
    edit.accept(spec.getDevices().getRequests().get(0).getExactly());
    return ClaimReading.read(spec);
  }

  @Test
  @DisplayName(
      "a generated claim (alternatives, constraints on alternatives) reads back as written")
  void generatedClaimRoundTrips() {
    assertEquals(Optional.of(generated()), ClaimReading.read(spec(generated())));
  }

  @Test
  @DisplayName("an exact request without count or mode is one device, ExactCount")
  void defaults() {
    assertEquals(
        Optional.of(
            new DeviceClaimSpec(
                List.of(ClaimRequest.exactly("gpus", ClaimGenerator.GPU_CLASS, 2)), List.of())),
        twoGpus(r -> {}));
  }

  @Test
  @DisplayName("a CEL selector, another class, adminAccess, All or distinctAttribute: not judged")
  void unmodelledClaimsAreLeftAlone() {
    assertEquals(Optional.empty(), twoGpus(r -> r.setSelectors(List.of(new DeviceSelector()))));
    assertEquals(Optional.empty(), twoGpus(r -> r.setDeviceClassName("gpu.nvidia.com")));
    assertEquals(Optional.empty(), twoGpus(r -> r.setAdminAccess(true)));
    assertEquals(Optional.empty(), twoGpus(r -> r.setAllocationMode("All")));
    DeviceConstraint distinct = new DeviceConstraint();
    distinct.setDistinctAttribute("tandem.dev/pcieSwitch");
    ResourceClaimSpec spec = spec(generated());
    spec.getDevices().getConstraints().add(distinct);
    assertEquals(Optional.empty(), ClaimReading.read(spec));
  }
}
