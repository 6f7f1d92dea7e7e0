package dev.tandem.extender.verbs;

import dev.tandem.api.ResourceNames;
import dev.tandem.extender.state.NodeClasses;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.json.JsonObject;

/**
 * How this extender reads what a pod asks of Tandem: the resources it counts and the policy of a
 * pod without annotations.
 *
 * @param defaults the alignment policy of a pod without the annotations
 * @param resources the GPU and HCA resources as the device plugins register them
 * @param classes the node classes whose own default replaces {@code defaults} on their nodes
 */
public record PodRequests(AlignmentPolicy defaults, ResourceNames resources, NodeClasses classes) {

  /** Switch alignment, required; {@code nvidia.com/gpu} and {@code rdma/hca}. */
  public static final PodRequests DEFAULT =
      new PodRequests(AlignmentPolicy.DEFAULT, ResourceNames.DEFAULT);

  /** Without node classes. */
  public PodRequests(AlignmentPolicy defaults, ResourceNames resources) {
    this(defaults, resources, NodeClasses.none());
  }

  /** Reads a v1.Pod as JSON; throws IllegalArgumentException when it is not shaped like one. */
  public PodRequest of(JsonObject pod) {
    return PodRequest.of(pod, defaults, resources, classes);
  }
}
