package dev.tandem.deviceplugin.preferred;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/** JSON of the {@code tandem.dev/plan} annotation. Unknown keys are ignored (newer extenders). */
public final class PlanCodec {

  private PlanCodec() {}

  public static String encode(Plan p) {
    return new JsonObject()
        .put("node", p.node())
        .put("gpus", new JsonArray(new ArrayList<Object>(p.gpus())))
        .put("hcas", new JsonArray(new ArrayList<Object>(p.hcas())))
        .put("locality", p.locality())
        .put("policy", p.policy())
        .put("plannedAt", p.plannedAt().toString())
        .encode();
  }

  /** @throws IllegalArgumentException naming what is wrong with the annotation */
  public static Plan decode(String json) {
    try {
      JsonObject o = new JsonObject(json);
      String node = o.getString("node");
      String at = o.getString("plannedAt");
      if (node == null || at == null) {
        throw new IllegalArgumentException(Plan.ANNOTATION + " lacks " + (node == null ? "node" : "plannedAt"));
      }
      return new Plan(node, strings(o, "gpus"), strings(o, "hcas"), o.getString("locality"),
          o.getString("policy"), Instant.parse(at));
    } catch (DecodeException | ClassCastException | DateTimeParseException e) {
      throw new IllegalArgumentException(Plan.ANNOTATION + " is not a valid plan: " + e.getMessage(), e);
    }
  }

  private static List<String> strings(JsonObject o, String key) {
    JsonArray a = o.getJsonArray(key, new JsonArray());
    List<String> out = new ArrayList<>(a.size());
    for (int i = 0; i < a.size(); i++) {
      out.add(a.getString(i));
    }
    return out;
  }
}
