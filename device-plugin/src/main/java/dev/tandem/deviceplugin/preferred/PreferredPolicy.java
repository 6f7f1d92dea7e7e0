package dev.tandem.deviceplugin.preferred;

import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * How GetPreferredAllocation is answered for one container: exactly {@code allocation_size} ids of
 * the available ones (fewer only when fewer are available), keeping the must-include ones. A policy
 * never fails for lack of a pod, a plan or a lookup: it falls back to the allocator's choice, then
 * to the kubelet's order. Hint mode and joint mode are the two implementations.
 */
@FunctionalInterface
public interface PreferredPolicy {

  Future<List<String>> choose(ContainerPreferredAllocationRequest request);

  /** The whole request: one answer per container request, in order. */
  default Future<PreferredAllocationResponse> answer(PreferredAllocationRequest request) {
    List<Future<List<String>>> each = new ArrayList<>();
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      each.add(choose(c));
    }
    return Future.all(each)
        .map(
            all -> {
              PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
              each.forEach(
                  f ->
                      b.addContainerResponses(
                          ContainerPreferredAllocationResponse.newBuilder()
                              .addAllDeviceIDs(f.result())));
              return b.build();
            });
  }
}
