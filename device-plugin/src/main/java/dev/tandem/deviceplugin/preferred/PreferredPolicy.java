package dev.tandem.deviceplugin.preferred;

import io.vertx.core.Future;
import java.util.List;

/**
 * How a container's devices are chosen (GetPreferredAllocation), on domain types: of the devices
 * offered, exactly {@link PreferredRequest#size} ids (fewer only when fewer are available), keeping
 * the must-include ones. The answer is a future because finding the pod the call is for asks the
 * API server and the kubelet ({@link PendingPodLocator}); a policy never fails for lack of a pod, a
 * plan or a lookup: it falls back to the allocator's choice, then to the kubelet's order. Hint mode
 * ({@code hint.HintPolicy}) and joint mode ({@code joint.JointPolicy}) are the two implementations;
 * the kubelet's protobuf messages are mapped to and from these types at the gRPC edge ({@code
 * resource.PreferredWire}).
 */
public interface PreferredPolicy {

  /** The ids chosen for one container. Never a failed future. */
  Future<List<String>> choose(PreferredRequest request);

  /**
   * What the kubelet allocated to one container (Allocate), for a policy that keeps state between
   * its answers (joint mode); ignored otherwise.
   */
  default void allocated(Side side, List<String> ids) {}
}
