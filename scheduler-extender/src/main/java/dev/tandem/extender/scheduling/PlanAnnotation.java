package dev.tandem.extender.scheduling;

import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.PodRef;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * The {@code tandem.dev/plan} annotation the device plugin reads:
 * {@code {"node":"n1","gpus":["GPU-…"],"hcas":["mlx5_0"],"locality":"PIX",
 * "policy":"switch/required","plannedAt":"2026-11-22T03:00:00Z"}}.
 */
public final class PlanAnnotation {

  public static final String KEY = "tandem.dev/plan";

  private PlanAnnotation() {}

  public static String json(AssumedPlan plan) {
    return new JsonObject()
        .put("node", plan.node())
        .put("gpus", new JsonArray(plan.gpus()))
        .put("hcas", new JsonArray(plan.hcas()))
        .put("locality", plan.locality().name())
        .put("policy", plan.policy().toString())
        .put("plannedAt", plan.plannedAt().truncatedTo(ChronoUnit.SECONDS).toString())
        .encode();
  }

  /** Reads a plan written on a pod back into an assumed plan expiring {@code ttl} after planning. */
  public static AssumedPlan parse(PodRef pod, String json, Duration ttl) {
    JsonObject o = new JsonObject(json);
    Instant at = Instant.parse(o.getString("plannedAt"));
    String[] policy = o.getString("policy", "switch/required").split("/", 2);
    return new AssumedPlan(pod, o.getString("node"),
        o.getJsonArray("gpus", new JsonArray()).getList(),
        o.getJsonArray("hcas", new JsonArray()).getList(),
        Locality.parse(o.getString("locality", "SYS")),
        AlignmentPolicy.fromAnnotations(java.util.Map.of(AlignmentPolicy.ALIGNMENT_ANNOTATION, policy[0],
            AlignmentPolicy.MODE_ANNOTATION, policy.length > 1 ? policy[1] : "required"),
            AlignmentPolicy.DEFAULT),
        at, at.plus(ttl));
  }
}
