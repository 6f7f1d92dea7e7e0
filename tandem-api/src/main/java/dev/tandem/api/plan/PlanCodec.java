package dev.tandem.api.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.api.Annotations;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The one JSON form of {@link Plan}: the extender encodes it on bind, the device plugin decodes it
 * on the node. Keys come out in a fixed order and {@code plannedAt} in whole seconds; unknown keys
 * are ignored on decode, so an older plugin reads a newer extender's plan.
 */
public final class PlanCodec {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PlanCodec() {}

  public static String encode(Plan p) {
    ObjectNode o = JSON.createObjectNode();
    o.put("node", p.node());
    p.gpus().forEach(o.putArray("gpus")::add);
    p.hcas().forEach(o.putArray("hcas")::add);
    o.put("locality", p.locality());
    o.put("policy", p.policy());
    o.put("plannedAt", p.plannedAt().truncatedTo(ChronoUnit.SECONDS).toString());
    return o.toString();
  }

  /**
   * Reads an annotation's value.
   *
   * @throws IllegalArgumentException naming the annotation and what is wrong with it
   */
  public static Plan decode(String json) {
    if (json == null) {
      throw invalid("is absent");
    }
    JsonNode o;
    try {
      o = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw invalid("is not JSON: " + e.getOriginalMessage());
    }
    if (o == null || !o.isObject()) {
      throw invalid("is not a JSON object");
    }
    String node = text(o, "node");
    String at = text(o, "plannedAt");
    if (node == null || at == null) {
      throw new IllegalArgumentException(
          Annotations.PLAN + " lacks " + (node == null ? "node" : "plannedAt"));
    }
    try {
      return new Plan(
          node,
          strings(o, "gpus"),
          strings(o, "hcas"),
          text(o, "locality"),
          text(o, "policy"),
          Instant.parse(at));
    } catch (DateTimeParseException e) {
      throw invalid("has a plannedAt that is not an RFC 3339 time: '" + at + "'");
    }
  }

  private static String text(JsonNode o, String key) {
    JsonNode v = o.get(key);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw invalid("has a " + key + " that is not a string");
    }
    return v.textValue();
  }

  private static List<String> strings(JsonNode o, String key) {
    JsonNode v = o.get(key);
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!(v instanceof ArrayNode a)) {
      throw invalid("has " + key + " that is not an array");
    }
    List<String> out = new ArrayList<>(a.size());
    for (JsonNode e : a) {
      if (!e.isTextual()) {
        throw invalid("has " + key + " with an element that is not a string");
      }
      out.add(e.textValue());
    }
    return out;
  }

  private static IllegalArgumentException invalid(String what) {
    return new IllegalArgumentException(Annotations.PLAN + " is not a valid plan: it " + what);
  }
}
