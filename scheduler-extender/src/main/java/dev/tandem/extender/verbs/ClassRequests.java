package dev.tandem.extender.verbs;

import dev.tandem.extender.state.NodeClasses;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.Map;

/**
 * A pod's request on the nodes of each node class ({@link NodeClasses}): the same devices, its
 * policy read from its annotations over the class's default instead of the cluster-wide one. Built
 * once per pod; {@link #NONE} when no class would change the pod's policy (none configured, or
 * annotations that set both alignment and mode), so that nodes are not looked up at all.
 */
final class ClassRequests {

  static final ClassRequests NONE = new ClassRequests(NodeClasses.none(), null);

  private final NodeClasses classes;

  /** The request on the nodes of each class, by class; null for {@link #NONE}. */
  private final AllocationRequest[] byClass;

  private ClassRequests(NodeClasses classes, AllocationRequest[] byClass) {
    this.classes = classes;
    this.byClass = byClass;
  }

  /**
   * @throws IllegalArgumentException as {@link AlignmentPolicy#fromAnnotations} for a bad value
   */
  static ClassRequests of(
      NodeClasses classes, AllocationRequest request, Map<String, String> annotations) {
    if (classes.isEmpty()) {
      return NONE;
    }
    AllocationRequest[] byClass = new AllocationRequest[classes.size()];
    boolean differs = false;
    for (int c = 0; c < byClass.length; c++) {
      AlignmentPolicy p = AlignmentPolicy.fromAnnotations(annotations, classes.policy(c));
      byClass[c] =
          p.equals(request.policy())
              ? request
              : new AllocationRequest(request.gpus(), request.hcas(), p);
      differs |= byClass[c] != request;
    }
    return differs ? new ClassRequests(classes, byClass) : NONE;
  }

  /** Whether some node may get another request than the pod's cluster-wide one. */
  boolean any() {
    return byClass != null;
  }

  /** How many classes there are ({@link #any()} only). */
  int size() {
    return byClass.length;
  }

  /** The node's class, or -1 (none, or no class changes this pod's request). */
  int classOf(String node) {
    return byClass == null ? -1 : classes.classOf(node);
  }

  /** The request on nodes of class {@code c} ({@link #classOf} not -1). */
  AllocationRequest at(int c) {
    return byClass[c];
  }
}
