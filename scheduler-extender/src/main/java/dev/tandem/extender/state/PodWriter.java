package dev.tandem.extender.state;

import io.vertx.core.Future;
import java.util.Map;

/**
 * The bind's API write: one Binding that assigns the pod to its node and carries the plan
 * annotation, which the API server merges onto the pod in the same update (its binding storage
 * copies a Binding's annotations to the pod), so a pod never has a plan without a node or a node
 * without its plan.
 */
public interface PodWriter {

  /**
   * Binds the pod to the node, adding {@code annotations} to the pod in the same write.
   *
   * @param annotations empty for a pod bound without a plan
   */
  Future<Void> bind(PodRef pod, String node, Map<String, String> annotations);

  /**
   * Prepares the write {@link #bind} would send, and sends nothing: a standby's rehearsal of a
   * bind. Nothing by default.
   */
  default void rehearse(PodRef pod, String node, Map<String, String> annotations) {}
}
