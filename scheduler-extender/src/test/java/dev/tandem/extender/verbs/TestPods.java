package dev.tandem.extender.verbs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/** v1.Pod objects as kube-scheduler sends them, reduced to what the verbs read. */
final class TestPods {

  private TestPods() {}

  /**
   * Pod {@code ml/p} (uid {@code u}) with one container limiting {@code gpus} {@code
   * nvidia.com/gpu} and {@code hcas} {@code rdma/hca}; a null count leaves the resource out.
   */
  static JsonObject pod(String gpus, String hcas, Map<String, String> annotations) {
    JsonObject limits = new JsonObject();
    if (gpus != null) {
      limits.put("nvidia.com/gpu", gpus);
    }
    if (hcas != null) {
      limits.put("rdma/hca", hcas);
    }
    return pod(limits, annotations);
  }

  /** Pod {@code ml/p} (uid {@code u}) with one container of these limits. */
  static JsonObject pod(JsonObject limits, Map<String, String> annotations) {
    JsonObject meta = new JsonObject().put("name", "p").put("namespace", "ml").put("uid", "u");
    if (!annotations.isEmpty()) {
      meta.put("annotations", new JsonObject(Map.copyOf(annotations)));
    }
    JsonObject container =
        new JsonObject()
            .put("name", "main")
            .put("resources", new JsonObject().put("limits", limits));
    return new JsonObject()
        .put("metadata", meta)
        .put("spec", new JsonObject().put("containers", new JsonArray().add(container)));
  }
}
