package dev.tandem.api.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.api.Annotations;
import dev.tandem.topology.request.ContainerShare;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The one JSON form of {@link Plan}: the extender encodes it on bind, the device plugin decodes it
 * on the node. Keys come out in a fixed order and {@code plannedAt} in whole seconds; unknown keys
 * are ignored on decode, so an older plugin reads a newer extender's plan. The per-container shares
 * ({@code containers}) are written only when there are some, so a plan without them reads and
 * writes as before; each share may name only devices of the plan.
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
    if (!p.containers().isEmpty()) {
      ArrayNode shares = o.putArray("containers");
      for (ContainerShare c : p.containers()) {
        ObjectNode s = shares.addObject();
        s.put("name", c.name());
        if (c.init()) {
          s.put("init", true);
        }
        c.gpus().forEach(s.putArray("gpus")::add);
        c.hcas().forEach(s.putArray("hcas")::add);
      }
    }
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
    Instant when;
    try {
      when = Instant.parse(at);
    } catch (DateTimeParseException e) {
      throw invalid("has a plannedAt that is not an RFC 3339 time: '" + at + "'");
    }
    List<String> gpus = strings(o, "gpus");
    List<String> hcas = strings(o, "hcas");
    return new Plan(
        node, gpus, hcas, text(o, "locality"), text(o, "policy"), when, containers(o, gpus, hcas));
  }

  /** The per-container shares; absent in plans written before them. */
  private static List<ContainerShare> containers(JsonNode o, List<String> gpus, List<String> hcas) {
    JsonNode v = o.get("containers");
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!(v instanceof ArrayNode a)) {
      throw invalid("has containers that is not an array");
    }
    List<ContainerShare> out = new ArrayList<>(a.size());
    Set<String> names = new HashSet<>();
    for (JsonNode c : a) {
      if (!c.isObject()) {
        throw invalid("has containers with an element that is not an object");
      }
      String name = text(c, "name");
      if (name == null || name.isEmpty()) {
        throw invalid("has a container share without a name");
      }
      if (!names.add(name)) {
        throw invalid("has two shares for container " + name);
      }
      JsonNode init = c.get("init");
      if (init != null && !init.isNull() && !init.isBoolean()) {
        throw invalid("has container " + name + " with an init that is not a boolean");
      }
      ContainerShare share =
          new ContainerShare(
              name, init != null && init.asBoolean(), strings(c, "gpus"), strings(c, "hcas"));
      within(share, share.gpus(), gpus, "gpus");
      within(share, share.hcas(), hcas, "hcas");
      out.add(share);
    }
    return out;
  }

  private static void within(ContainerShare c, List<String> ids, List<String> plan, String key) {
    for (String id : ids) {
      if (!plan.contains(id)) {
        throw invalid(
            "gives container " + c.name() + " " + id + ", which is not among the plan's " + key);
      }
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
