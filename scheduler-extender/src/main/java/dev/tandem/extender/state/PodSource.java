package dev.tandem.extender.state;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Finds pods the scheduler names: the pod of a bind (name, namespace, UID), and the victims of a
 * preemption (UID only).
 */
public interface PodSource {

  /** The pod as JSON (v1.Pod); fails naming the pod when it cannot be found. */
  Future<JsonObject> pod(PodRef ref);

  /**
   * The pod with this UID from the local cache, without a call to the API; null when the cache does
   * not hold it. Called off the event loop.
   */
  default AssignedPod assigned(String uid) {
    return null;
  }
}
