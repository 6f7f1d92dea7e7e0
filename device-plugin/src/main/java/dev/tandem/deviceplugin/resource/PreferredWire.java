package dev.tandem.deviceplugin.resource;

import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The kubelet's device-plugin messages mapped to and from a {@link PreferredPolicy}'s domain types:
 * a GetPreferredAllocation call is one {@link PreferredRequest} per container request, answered in
 * the same order; an Allocate call tells the policy each container's devices.
 */
final class PreferredWire {

  private PreferredWire() {}

  /** The whole call for {@code side}: one answer per container request, in order. */
  static Future<PreferredAllocationResponse> answer(
      PreferredPolicy policy, Side side, PreferredAllocationRequest request) {
    List<Future<List<String>>> each = new ArrayList<>();
    for (PreferredRequest r : requests(side, request)) {
      each.add(policy.choose(r));
    }
    return Future.all(each).map(all -> response(each.stream().map(Future::result).toList()));
  }

  /** Each container request as the domain's question. */
  static List<PreferredRequest> requests(Side side, PreferredAllocationRequest request) {
    List<PreferredRequest> out = new ArrayList<>(request.getContainerRequestsCount());
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      out.add(
          new PreferredRequest(
              side,
              c.getAvailableDeviceIDsList(),
              c.getMustIncludeDeviceIDsList(),
              c.getAllocationSize()));
    }
    return out;
  }

  /** One container response per answer, in order. */
  static PreferredAllocationResponse response(List<List<String>> answers) {
    PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
    for (List<String> ids : answers) {
      b.addContainerResponses(
          ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
    }
    return b.build();
  }

  /** Tells the policy what each container of an Allocate call got. */
  static void allocated(PreferredPolicy policy, Side side, AllocateRequest request) {
    for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
      policy.allocated(side, c.getDevicesIdsList());
    }
  }
}
