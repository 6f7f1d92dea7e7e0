package dev.tandem.extender.standby;

import dev.tandem.api.ResourceNames;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/**
 * The pods a standby rehearses with, as kube-scheduler sends a pending pod: a training worker
 * asking for 1–8 GPUs and 0–8 HCAs under every alignment and mode, so that the branches the verbs
 * take for device pods are all exercised. None of them is ever bound or remembered.
 */
final class RehearsalPods {

  /** The namespace the pods claim to be in; no object is ever created there. */
  static final String NAMESPACE = "tandem-standby-rehearsal";

  private static final int GPUS = 8;
  private static final int HCAS = 9;

  private final ResourceNames resources;

  RehearsalPods(ResourceNames resources) {
    this.resources = resources;
  }

  /** How many distinct pods there are; {@link #pod} repeats after that. */
  int count() {
    return GPUS * HCAS * Alignment.values().length * AlignmentMode.values().length;
  }

  /** The {@code n}th pod (modulo {@link #count}) as a v1.Pod. */
  JsonObject pod(int n) {
    int i = Math.floorMod(n, count());
    int gpus = 1 + i % GPUS;
    int hcas = (i / GPUS) % HCAS;
    Alignment alignment = Alignment.values()[(i / (GPUS * HCAS)) % Alignment.values().length];
    AlignmentMode mode = AlignmentMode.values()[i / (GPUS * HCAS * Alignment.values().length)];
    JsonObject limits = new JsonObject().put(resources.gpu(), String.valueOf(gpus));
    if (hcas > 0) {
      limits.put(resources.hca(), String.valueOf(hcas));
    }
    return new JsonObject()
        .put(
            "metadata",
            new JsonObject()
                .put("name", "rehearsal-" + i)
                .put("namespace", NAMESPACE)
                .put("uid", String.format(Locale.ROOT, "00000000-0000-4000-8000-%012d", i))
                .put(
                    "annotations",
                    new JsonObject()
                        .put(AlignmentPolicy.ALIGNMENT_ANNOTATION, alignment.value())
                        .put(AlignmentPolicy.MODE_ANNOTATION, mode.value())))
        .put(
            "spec",
            new JsonObject()
                .put(
                    "containers",
                    new JsonArray()
                        .add(
                            new JsonObject()
                                .put("name", "trainer")
                                .put("resources", new JsonObject().put("limits", limits)))));
  }
}
