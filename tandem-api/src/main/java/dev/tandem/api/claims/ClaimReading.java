package dev.tandem.api.claims;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSelector;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A ResourceClaim's devices read back into a {@link DeviceClaimSpec}, when {@link ClaimMatcher} can
 * judge them exactly: every request (or each of its {@code firstAvailable} alternatives) asks an
 * exact count of one of Tandem's DeviceClasses without selectors, {@code adminAccess} or capacity,
 * and every constraint is a {@code matchAttribute}. Anything else (another driver's class, a CEL
 * selector, {@code allocationMode: All}, {@code distinctAttribute}, a field this reading does not
 * know) leaves the claim unread: the matcher would judge something else than kube-scheduler.
 * Tolerations are read as nothing: the judgement counts tainted devices as usable, which only makes
 * it more lenient. Pure.
 */
public final class ClaimReading {

  /** Tandem's DeviceClasses as the chart and manifests ship them. */
  public static final Set<String> TANDEM_CLASSES =
      Set.of(ClaimGenerator.GPU_CLASS, ClaimGenerator.HCA_CLASS);

  private static final String EXACT_COUNT = "ExactCount";

  private ClaimReading() {}

  /** The claim's devices, or empty when it asks anything the matcher does not model. */
  public static Optional<DeviceClaimSpec> read(ResourceClaimSpec spec) {
    DeviceClaim devices = spec == null ? null : spec.getDevices();
    if (devices == null
        || empty(devices.getRequests())
        || !devices.getAdditionalProperties().isEmpty()) {
      return Optional.empty();
    }
    List<ClaimRequest> requests = new ArrayList<>();
    for (DeviceRequest r : devices.getRequests()) {
      Optional<ClaimRequest> read = request(r);
      if (read.isEmpty()) {
        return Optional.empty();
      }
      requests.add(read.get());
    }
    List<MatchConstraint> constraints = new ArrayList<>();
    for (DeviceConstraint c : list(devices.getConstraints())) {
      if (c.getMatchAttribute() == null
          || c.getDistinctAttribute() != null
          || !c.getAdditionalProperties().isEmpty()) {
        return Optional.empty();
      }
      constraints.add(new MatchConstraint(c.getMatchAttribute(), list(c.getRequests())));
    }
    return Optional.of(new DeviceClaimSpec(requests, constraints));
  }

  private static Optional<ClaimRequest> request(DeviceRequest r) {
    if (r.getName() == null || !r.getAdditionalProperties().isEmpty()) {
      return Optional.empty();
    }
    ExactDeviceRequest exactly = r.getExactly();
    List<DeviceSubRequest> alternatives = list(r.getFirstAvailable());
    if ((exactly == null) == alternatives.isEmpty()) {
      return Optional.empty();
    }
    List<DeviceChoice> choices = new ArrayList<>();
    if (exactly != null) {
      if (Boolean.TRUE.equals(exactly.getAdminAccess())) {
        return Optional.empty();
      }
      Optional<DeviceChoice> choice =
          choice(
              null,
              exactly.getDeviceClassName(),
              exactly.getAllocationMode(),
              exactly.getCount(),
              exactly.getSelectors(),
              exactly.getCapacity() != null,
              exactly.getAdditionalProperties());
      choice.ifPresent(choices::add);
    } else {
      for (DeviceSubRequest s : alternatives) {
        if (s.getName() == null) {
          return Optional.empty();
        }
        Optional<DeviceChoice> choice =
            choice(
                s.getName(),
                s.getDeviceClassName(),
                s.getAllocationMode(),
                s.getCount(),
                s.getSelectors(),
                s.getCapacity() != null,
                s.getAdditionalProperties());
        if (choice.isEmpty()) {
          return Optional.empty();
        }
        choices.add(choice.get());
      }
    }
    return choices.isEmpty()
        ? Optional.empty()
        : Optional.of(new ClaimRequest(r.getName(), choices));
  }

  private static Optional<DeviceChoice> choice(
      String name,
      String deviceClass,
      String mode,
      Long count,
      List<DeviceSelector> selectors,
      boolean capacity,
      Map<String, Object> unknown) {
    boolean exactCount = mode == null || EXACT_COUNT.equals(mode);
    long n = count == null ? 1 : count;
    if (!TANDEM_CLASSES.contains(deviceClass)
        || !exactCount
        || n < 1
        || n > ClaimLimits.DEVICES
        || !empty(selectors)
        || capacity
        || !unknown.isEmpty()) {
      return Optional.empty();
    }
    // tolerations only let tainted devices in, which the judgement counts as usable anyway
    return Optional.of(new DeviceChoice(name, deviceClass, (int) n));
  }

  private static boolean empty(List<?> list) {
    return list == null || list.isEmpty();
  }

  private static <T> List<T> list(List<T> list) {
    return list == null ? List.of() : list;
  }
}
