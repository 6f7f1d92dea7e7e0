package dev.tandem.api.claims;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentMode;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceConstraint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateSpec;
import java.util.ArrayList;
import java.util.List;

/** A {@link DeviceClaimSpec} as fabric8's {@code resource.k8s.io/v1} ResourceClaimTemplate. */
public final class ClaimTemplates {

  private static final String EXACT_COUNT = "ExactCount";

  private ClaimTemplates() {}

  /**
   * The name {@code tandem claim} and the shipped templates (the chart's {@code claimTemplates},
   * {@code manifests/examples/dra-claims}) give a shape's template: {@code
   * tandem-<gpus>g<hcas>h-<alignment>}, with {@code -preferred} for a preferred aligned claim (a
   * claim without constraints is the same in both modes).
   */
  public static String defaultName(AllocationRequest request) {
    String name =
        "tandem-"
            + request.gpus()
            + "g"
            + request.hcas()
            + "h-"
            + request.policy().alignment().value();
    boolean preferred =
        ClaimGenerator.aligned(request) && request.policy().mode() == AlignmentMode.PREFERRED;
    return preferred ? name + "-preferred" : name;
  }

  /**
   * @param name the template's name
   * @param namespace its namespace, or null to leave it to {@code kubectl apply}
   */
  public static ResourceClaimTemplate template(
      String name, String namespace, DeviceClaimSpec claim) {
    ObjectMeta meta = new ObjectMeta();
    meta.setName(name);
    meta.setNamespace(namespace);
    ResourceClaimSpec spec = new ResourceClaimSpec();
    spec.setDevices(devices(claim));
    ResourceClaimTemplateSpec templateSpec = new ResourceClaimTemplateSpec();
    templateSpec.setSpec(spec);
    ResourceClaimTemplate template = new ResourceClaimTemplate();
    template.setMetadata(meta);
    template.setSpec(templateSpec);
    return template;
  }

  static DeviceClaim devices(DeviceClaimSpec claim) {
    List<DeviceRequest> requests = new ArrayList<>();
    for (ClaimRequest r : claim.requests()) {
      DeviceRequest request = new DeviceRequest();
      request.setName(r.name());
      if (r.exactly()) {
        DeviceChoice c = r.choices().get(0);
        ExactDeviceRequest exactly = new ExactDeviceRequest();
        exactly.setDeviceClassName(c.deviceClass());
        exactly.setAllocationMode(EXACT_COUNT);
        exactly.setCount((long) c.count());
        request.setExactly(exactly);
      } else {
        request.setFirstAvailable(r.choices().stream().map(ClaimTemplates::subRequest).toList());
      }
      requests.add(request);
    }
    List<DeviceConstraint> constraints = new ArrayList<>();
    for (MatchConstraint c : claim.constraints()) {
      DeviceConstraint constraint = new DeviceConstraint();
      constraint.setMatchAttribute(c.attribute());
      constraint.setRequests(c.requests());
      constraints.add(constraint);
    }
    DeviceClaim devices = new DeviceClaim();
    devices.setRequests(requests);
    devices.setConstraints(constraints);
    return devices;
  }

  private static DeviceSubRequest subRequest(DeviceChoice c) {
    DeviceSubRequest sub = new DeviceSubRequest();
    sub.setName(c.name());
    sub.setDeviceClassName(c.deviceClass());
    sub.setAllocationMode(EXACT_COUNT);
    sub.setCount((long) c.count());
    return sub;
  }
}
