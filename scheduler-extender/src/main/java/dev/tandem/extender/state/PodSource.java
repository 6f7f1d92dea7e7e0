package dev.tandem.extender.state;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** Finds the pod of a bind request: the scheduler sends only its name, namespace and UID. */
public interface PodSource {

  /** The pod as JSON (v1.Pod); fails naming the pod when it cannot be found. */
  Future<JsonObject> pod(PodRef ref);
}
