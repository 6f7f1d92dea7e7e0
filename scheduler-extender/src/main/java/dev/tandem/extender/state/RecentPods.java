package dev.tandem.extender.state;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * Pods seen by filter and prioritize, by UID: the pod of a bind is normally one of them. When it is
 * not (an extender restart between filter and bind), the fallback source is asked.
 */
public final class RecentPods implements PodSource {

  private final Cache<String, JsonObject> pods;
  private final PodSource fallback;

  public RecentPods(Duration keep, long maximum, PodSource fallback) {
    this.pods = Caffeine.newBuilder().expireAfterWrite(keep).maximumSize(maximum).build();
    this.fallback = fallback;
  }

  public void remember(String uid, JsonObject pod) {
    if (uid != null && !uid.isEmpty()) {
      pods.put(uid, pod);
    }
  }

  /** Drops a pod whose bind is done: only pods still to be bound are worth their memory. */
  public void forget(String uid) {
    pods.invalidate(uid);
  }

  @Override
  public Future<JsonObject> pod(PodRef ref) {
    JsonObject pod = pods.getIfPresent(ref.uid());
    return pod != null ? Future.succeededFuture(pod) : fallback.pod(ref);
  }

  /**
   * The fallback's answer; else the pod filter or prioritize saw with this UID, node unknown (the
   * demo's victims, which only filter and bind saw).
   */
  @Override
  public AssignedPod assigned(String uid) {
    AssignedPod known = fallback.assigned(uid);
    if (known != null) {
      return known;
    }
    JsonObject pod = pods.getIfPresent(uid);
    if (pod == null || pod.isEmpty()) {
      return null;
    }
    JsonObject meta = pod.getJsonObject("metadata", new JsonObject());
    Object priority = pod.getJsonObject("spec", new JsonObject()).getValue("priority");
    return new AssignedPod(
        new PodRef(meta.getString("namespace", "default"), meta.getString("name", ""), uid),
        null,
        priority instanceof Number n ? n.intValue() : 0);
  }

  /** A fallback for the demo: there is no API to ask. */
  public static PodSource none() {
    return ref ->
        Future.failedFuture(
            "pod "
                + ref
                + " was not seen by filter or prioritize in the"
                + " last minutes; send a filter or prioritize request with this pod first");
  }
}
