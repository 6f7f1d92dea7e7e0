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
import java.util.Set;

/**
 * The kubelet's device-plugin messages mapped to and from a {@link PreferredPolicy}'s domain types:
 * a GetPreferredAllocation call is one {@link PreferredRequest} per container request, answered in
 * the same order; an Allocate call tells the policy each container's devices.
 */
final class PreferredWire {

  private PreferredWire() {}

  /**
   * The whole call for {@code side}: one answer per container request, in order. Ids the resource
   * does not offer are dropped from what the kubelet sent before the policy sees it, so that no
   * answer names a device the plugin does not have (the kubelet never sends one).
   */
  static Future<PreferredAllocationResponse> answer(
      PreferredPolicy policy, Side side, PreferredAllocationRequest request, Set<String> offered) {
    List<Future<List<String>>> each = new ArrayList<>();
    for (PreferredRequest r : requests(side, request, offered)) {
      each.add(policy.choose(r));
    }
    return Future.all(each).map(all -> response(each.stream().map(Future::result).toList()));
  }

  /** Each container request as the domain's question, of the {@code offered} ids only. */
  static List<PreferredRequest> requests(
      Side side, PreferredAllocationRequest request, Set<String> offered) {
    List<PreferredRequest> out = new ArrayList<>(request.getContainerRequestsCount());
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      out.add(
          new PreferredRequest(
              side,
              only(c.getAvailableDeviceIDsList(), offered),
              only(c.getMustIncludeDeviceIDsList(), offered),
              c.getAllocationSize()));
    }
    return out;
  }

  private static List<String> only(List<String> ids, Set<String> offered) {
    return ids.stream().filter(offered::contains).toList();
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
