package dev.tandem.extender.http;

import dev.tandem.extender.verbs.ProposedVictim;
import dev.tandem.extender.verbs.ProposedVictims;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A decoded ExtenderPreemptionArgs (preempt body): the pod and, per node, the victims
 * kube-scheduler proposes. With {@code nodeCacheCapable: true} it sends {@code
 * NodeNameToMetaVictims} (UIDs only) and {@code NodeNameToVictims: null}; otherwise the reverse,
 * with full pods. Preemption is rare and its bodies small, so it is read as a JSON tree.
 *
 * @param pod the v1.Pod to place
 * @param proposals per node, in the body's order
 */
public record PreemptionArgs(JsonObject pod, Map<String, ProposedVictims> proposals) {

  private static final String META = "NodeNameToMetaVictims";
  private static final String FULL = "NodeNameToVictims";

  /**
   * Decodes a preempt body.
   *
   * @throws BadRequest when it is not an ExtenderPreemptionArgs, saying what is wrong
   */
  public static PreemptionArgs decode(Buffer body) {
    JsonObject args = JsonBodies.object(body);
    if (!(args.getValue("Pod") instanceof JsonObject pod)) {
      throw new BadRequest("ExtenderPreemptionArgs.Pod must be a v1.Pod object");
    }
    Object meta = args.getValue(META);
    Object full = args.getValue(FULL);
    if (meta != null && full != null) {
      throw new BadRequest(
          "ExtenderPreemptionArgs carries both "
              + META
              + " and "
              + FULL
              + "; kube-scheduler sets exactly one (MetaVictims when nodeCacheCapable is true)");
    }
    if (meta == null && full == null) {
      throw new BadRequest(
          "ExtenderPreemptionArgs carries neither "
              + META
              + " nor "
              + FULL
              + "; kube-scheduler sets one of them (MetaVictims when nodeCacheCapable is true)");
    }
    boolean isMeta = meta != null;
    String key = isMeta ? META : FULL;
    if (!((isMeta ? meta : full) instanceof JsonObject map)) {
      throw new BadRequest("ExtenderPreemptionArgs." + key + " must be an object of node names");
    }
    Map<String, ProposedVictims> proposals = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : map) {
      String where = "ExtenderPreemptionArgs." + key + "[" + e.getKey() + "]";
      proposals.put(e.getKey(), victims(where, e.getValue(), isMeta));
    }
    return new PreemptionArgs(pod, Collections.unmodifiableMap(proposals));
  }

  private static ProposedVictims victims(String where, Object value, boolean meta) {
    if (!(value instanceof JsonObject v)) {
      throw new BadRequest(where + " must be an object with Pods and NumPDBViolations");
    }
    Object pdb = v.getValue("NumPDBViolations");
    if (pdb != null && !(pdb instanceof Integer || pdb instanceof Long)) {
      throw new BadRequest(where + ".NumPDBViolations must be an integer");
    }
    Object pods = v.getValue("Pods");
    if (pods != null && !(pods instanceof JsonArray)) {
      throw new BadRequest(where + ".Pods must be an array");
    }
    List<ProposedVictim> out = new ArrayList<>();
    if (pods != null) {
      JsonArray array = (JsonArray) pods;
      for (int i = 0; i < array.size(); i++) {
        String at = where + ".Pods[" + i + "]";
        out.add(meta ? metaPod(at, array.getValue(i)) : pod(at, array.getValue(i)));
      }
    }
    return new ProposedVictims(out, pdb == null ? 0 : Math.max(0, ((Number) pdb).longValue()));
  }

  private static ProposedVictim metaPod(String at, Object value) {
    if (!(value instanceof JsonObject p)
        || !(p.getValue("UID") instanceof String uid)
        || uid.isEmpty()) {
      throw new BadRequest(at + " must be a MetaPod with a non-empty UID");
    }
    return ProposedVictim.meta(uid);
  }

  private static ProposedVictim pod(String at, Object value) {
    if (!(value instanceof JsonObject p)
        || !(p.getValue("metadata") instanceof JsonObject meta)
        || !(meta.getValue("uid") instanceof String uid)
        || uid.isEmpty()) {
      throw new BadRequest(at + " must be a v1.Pod with metadata.uid");
    }
    Object spec = p.getValue("spec");
    if (spec != null && !(spec instanceof JsonObject)) {
      throw new BadRequest(at + ".spec must be an object");
    }
    JsonObject s = spec == null ? new JsonObject() : (JsonObject) spec;
    Object node = s.getValue("nodeName");
    Object priority = s.getValue("priority");
    if ((node != null && !(node instanceof String))
        || (priority != null && !(priority instanceof Integer))) {
      throw new BadRequest(at + ".spec.nodeName must be a string and spec.priority an int32");
    }
    return new ProposedVictim(
        uid,
        text(meta, "namespace", "default") + "/" + text(meta, "name", ""),
        (String) node,
        priority == null ? 0 : (Integer) priority);
  }

  private static String text(JsonObject o, String key, String absent) {
    return o.getValue(key) instanceof String s ? s : absent;
  }
}
