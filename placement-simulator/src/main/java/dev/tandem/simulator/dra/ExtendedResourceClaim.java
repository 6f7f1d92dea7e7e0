package dev.tandem.simulator.dra;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.ClaimRequest;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.topology.allocation.AllocationRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The claim kube-scheduler writes for a pod that asks {@code nvidia.com/gpu} and {@code rdma/hca}
 * as extended resources on a node whose DRA driver serves them (KEP-5004, the DeviceClasses {@code
 * tandem-gpu} and {@code tandem-hca} given {@code spec.extendedResourceName}; docs/dra.md, "Pods
 * that keep asking extended resources").
 *
 * <p>Read from kubernetes/kubernetes {@code
 * pkg/scheduler/framework/plugins/dynamicresources/extendeddynamicresources.go} ({@code
 * createRequestsAndMappings}): one {@code exactly} request per container and resource name, of the
 * name's DeviceClass and the container's count, named {@code container-<i>-request-<j>} with {@code
 * j} the name's index among all the container's requests sorted by name, the requests sorted by
 * name; no selectors and no constraints, whatever alignment the pod's annotation asks. Modelled:
 * one container asking only the two names, so the GPU request comes first ({@code nvidia.com/gpu}
 * sorts before {@code rdma/hca}); the names do not change the allocation.
 */
public final class ExtendedResourceClaim {

  private ExtendedResourceClaim() {}

  /** The claim for a one-container pod asking the request's counts as extended resources. */
  public static DeviceClaimSpec of(AllocationRequest request) {
    Map<String, Integer> asked = new TreeMap<>();
    asked.put(ResourceNames.GPU, request.gpus());
    asked.put(ResourceNames.HCA, request.hcas());
    Map<String, String> classOf =
        Map.of(
            ResourceNames.GPU,
            ClaimGenerator.GPU_CLASS,
            ResourceNames.HCA,
            ClaimGenerator.HCA_CLASS);
    List<ClaimRequest> requests = new ArrayList<>();
    for (Map.Entry<String, Integer> e : asked.entrySet()) {
      if (e.getValue() > 0) {
        String name = "container-0-request-" + requests.size();
        requests.add(ClaimRequest.exactly(name, classOf.get(e.getKey()), e.getValue()));
      }
    }
    return new DeviceClaimSpec(requests, List.of());
  }
}
