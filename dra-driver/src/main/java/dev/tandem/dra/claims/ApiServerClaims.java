package dev.tandem.dra.claims;

import dev.tandem.dra.prepare.AllocatedDevice;
import dev.tandem.dra.prepare.ClaimAllocation;
import dev.tandem.dra.prepare.ClaimSource;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Prepare's claims, read from the API server ({@code resource.k8s.io/v1}). Blocking. */
public final class ApiServerClaims implements ClaimSource {

  private final KubernetesClient client;

  public ApiServerClaims(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public Optional<ClaimAllocation> claim(String namespace, String name) {
    ResourceClaim claim =
        client
            .dynamicResourceAllocation()
            .v1()
            .resourceClaims()
            .inNamespace(namespace)
            .withName(name)
            .get();
    return Optional.ofNullable(claim).map(ApiServerClaims::allocation);
  }

  static ClaimAllocation allocation(ResourceClaim claim) {
    AllocationResult allocation =
        claim.getStatus() == null ? null : claim.getStatus().getAllocation();
    List<AllocatedDevice> devices = new ArrayList<>();
    if (allocation != null
        && allocation.getDevices() != null
        && allocation.getDevices().getResults() != null) {
      for (DeviceRequestAllocationResult r : allocation.getDevices().getResults()) {
        if (r != null) {
          devices.add(
              new AllocatedDevice(r.getRequest(), r.getDriver(), r.getPool(), r.getDevice()));
        }
      }
    }
    // a claim without metadata has no UID: Prepare refuses it as not the kubelet's claim
    String uid = claim.getMetadata() == null ? null : claim.getMetadata().getUid();
    return new ClaimAllocation(uid, allocation != null, devices);
  }
}
