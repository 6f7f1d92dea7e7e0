package dev.tandem.dra.claims;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;

/**
 * ResourceClaims as kube-scheduler leaves them once allocated, in fabric8's mock API server (CRUD
 * mode): the claim created, then its allocation written as its status, as the scheduler's status
 * write sets it (the mock's create does not keep a status).
 */
public final class AllocatedClaims {

  private AllocatedClaims() {}

  /**
   * The claim {@code namespace/name} with one request, {@code request}, allocated {@code devices}
   * of driver {@code tandem.dev}'s pool {@code pool}.
   *
   * @return the claim as the mock stores it (its UID set)
   */
  public static ResourceClaim create(
      KubernetesClient client,
      String namespace,
      String name,
      String request,
      String pool,
      List<String> devices) {
    List<DeviceRequestAllocationResult> results = new ArrayList<>();
    for (String device : devices) {
      results.add(
          new DeviceRequestAllocationResultBuilder()
              .withRequest(request)
              .withDriver("tandem.dev")
              .withPool(pool)
              .withDevice(device)
              .build());
    }
    ResourceClaim claim =
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNewDevices()
            .addNewRequest()
            .withName(request)
            .endRequest()
            .endDevices()
            .endSpec()
            .withNewStatus()
            .withNewAllocation()
            .withNewDevices()
            .withResults(results)
            .endDevices()
            .endAllocation()
            .endStatus()
            .build();
    ResourceClaim created =
        client.dynamicResourceAllocation().v1().resourceClaims().resource(claim).create();
    created.setStatus(claim.getStatus());
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .resource(created)
        .updateStatus();
  }
}
