package dev.tandem.extender.verbs;

import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.Resources;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.PodDemand;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod asks of Tandem: its effective GPU and HCA request and its alignment policy.
 *
 * @param pod namespace, name and UID
 * @param request GPUs, HCAs and policy; null when the policy annotations are invalid
 * @param problem why the pod cannot be placed by Tandem at all (bad annotation); null if none
 */
public record PodRequest(PodRef pod, AllocationRequest request, String problem) {

  /** Whether Tandem has anything to decide: the pod requests GPUs or HCAs. */
  public boolean interested() {
    return problem != null || request.gpus() > 0 || request.hcas() > 0;
  }

  /** Reads a v1.Pod as JSON; throws IllegalArgumentException when it is not shaped like one. */
  public static PodRequest of(JsonObject pod, AlignmentPolicy defaults) {
    JsonObject meta = object(pod, "metadata");
    JsonObject spec = object(pod, "spec");
    PodRef ref =
        new PodRef(
            meta.getString("namespace", "default"),
            meta.getString("name", ""),
            meta.getString("uid", ""));
    List<ContainerDemand> init = containers(spec, "initContainers");
    List<ContainerDemand> app = containers(spec, "containers");
    int gpus = Math.toIntExact(PodDemand.effective(Resources.GPU, init, app));
    int hcas = Math.toIntExact(PodDemand.effective(Resources.HCA, init, app));
    if (gpus == 0 && hcas == 0) {
      return new PodRequest(ref, new AllocationRequest(0, 0, defaults), null);
    }
    try {
      AlignmentPolicy policy = AlignmentPolicy.fromAnnotations(annotations(meta), defaults);
      return new PodRequest(ref, new AllocationRequest(gpus, hcas, policy), null);
    } catch (IllegalArgumentException e) {
      return new PodRequest(
          ref,
          null,
          "pod "
              + ref.namespace()
              + "/"
              + ref.name()
              + " has an invalid "
              + e.getMessage()
              + " (fix the annotation and recreate the pod)");
    }
  }

  private static Map<String, String> annotations(JsonObject meta) {
    JsonObject a = object(meta, "annotations");
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, Object> e : a) {
      if (e.getValue() instanceof String s) {
        out.put(e.getKey(), s);
      }
    }
    return out;
  }

  private static List<ContainerDemand> containers(JsonObject spec, String key) {
    Object value = spec.getValue(key);
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof JsonArray array)) {
      throw new IllegalArgumentException("spec." + key + " is not an array");
    }
    List<ContainerDemand> out = new ArrayList<>(array.size());
    for (Object o : array) {
      if (!(o instanceof JsonObject c)) {
        throw new IllegalArgumentException("spec." + key + " holds a non-object");
      }
      JsonObject resources = object(c, "resources");
      out.add(
          new ContainerDemand(
              c.getString("name", ""),
              quantities(resources, "requests"),
              quantities(resources, "limits"),
              "Always".equals(c.getValue("restartPolicy"))));
    }
    return out;
  }

  private static Map<String, Long> quantities(JsonObject resources, String key) {
    JsonObject q = object(resources, key);
    Map<String, Long> out = new HashMap<>(4);
    for (String r : new String[] {Resources.GPU, Resources.HCA}) {
      Object v = q.getValue(r);
      if (v != null) {
        out.put(r, Quantities.units(v));
      }
    }
    return out;
  }

  static JsonObject object(JsonObject parent, String key) {
    Object v = parent.getValue(key);
    if (v == null) {
      return new JsonObject();
    }
    if (!(v instanceof JsonObject o)) {
      throw new IllegalArgumentException(key + " is not an object");
    }
    return o;
  }
}
