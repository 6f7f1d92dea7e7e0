package dev.tandem.extender.verbs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
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

  /** A container limiting {@code gpus} {@code nvidia.com/gpu} and {@code hcas} {@code rdma/hca}. */
  static JsonObject container(String name, int gpus, int hcas) {
    JsonObject limits = new JsonObject().put("nvidia.com/gpu", gpus).put("rdma/hca", hcas);
    return new JsonObject()
        .put("name", name)
        .put("resources", new JsonObject().put("limits", limits));
  }

  /** Pod {@code ml/p} (uid {@code u}) with these containers and init containers. */
  static JsonObject pod(List<JsonObject> containers, List<JsonObject> initContainers) {
    JsonObject meta = new JsonObject().put("name", "p").put("namespace", "ml").put("uid", "u");
    return new JsonObject()
        .put("metadata", meta)
        .put(
            "spec",
            new JsonObject()
                .put("containers", new JsonArray(List.copyOf(containers)))
                .put("initContainers", new JsonArray(List.copyOf(initContainers))));
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
