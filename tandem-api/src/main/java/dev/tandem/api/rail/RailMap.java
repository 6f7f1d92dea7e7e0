package dev.tandem.api.rail;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The operator's rail mapping (docs/rails.md, "The operator's mapping"): a JSON array of entries,
 * each a {@code nodeSelector} (labels a node must all carry; none: every node) and {@code rails}
 * (rail by HCA, the HCA named by its ibverbs name, a netdev or its PCI address). A node takes the
 * first entry whose selector it matches. Parsing is pure: the agent reads the file and the node's
 * labels, topology-core's {@code Rails.fromMapping} applies the rails.
 *
 * <pre>{@code
 * [{"nodeSelector": {"node.kubernetes.io/instance-type": "a3-megagpu-8g"},
 *   "rails": {"mlx5_0": 0, "mlx5_1": 1, "eth2": 2, "0000:c0:00.0": 3}}]
 * }</pre>
 *
 * @param entries the entries, in the order a node is matched against them
 */
public record RailMap(List<Entry> entries) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FIELDS = Set.of("nodeSelector", "rails");

  public RailMap {
    entries = List.copyOf(entries);
  }

  /**
   * One entry of the mapping.
   *
   * @param nodeSelector labels a node must all carry to take this entry
   * @param rails rail by HCA key
   */
  public record Entry(Map<String, String> nodeSelector, Map<String, Integer> rails) {
    public Entry {
      nodeSelector = Map.copyOf(nodeSelector);
      rails = Collections.unmodifiableMap(new LinkedHashMap<>(rails));
    }

    /** Whether a node with these labels takes this entry. */
    public boolean selects(Map<String, String> labels) {
      return nodeSelector.entrySet().stream()
          .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }
  }

  /** The rails of the first entry that selects a node with these labels; empty when none does. */
  public Optional<Map<String, Integer>> forNode(Map<String, String> labels) {
    return entries.stream().filter(e -> e.selects(labels)).findFirst().map(Entry::rails);
  }

  /**
   * Parses the mapping.
   *
   * @throws IllegalArgumentException naming the entry and the field that is not as described
   */
  public static RailMap parse(String json) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      // a nesting or size limit of Jackson's (StreamConstraintsException) has no location
      String line = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr();
      throw new IllegalArgumentException("is not JSON: " + e.getOriginalMessage() + line, e);
    }
    if (root == null || !root.isArray()) {
      throw new IllegalArgumentException("is not a JSON array of {nodeSelector, rails} entries");
    }
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      entries.add(entry(root.get(i), "entry " + i));
    }
    return new RailMap(entries);
  }

  private static Entry entry(JsonNode node, String at) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(at + " is not an object");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new IllegalArgumentException(
            at + " has an unknown field '" + name + "' (allowed: nodeSelector, rails)");
      }
    }
    Map<String, String> selector = new LinkedHashMap<>();
    fields(node.get("nodeSelector"), at + ".nodeSelector", true)
        .forEach(
            (k, v) -> {
              if (!v.isTextual()) {
                throw new IllegalArgumentException(at + ".nodeSelector." + k + " is not a string");
              }
              selector.put(k, v.asText());
            });
    Map<String, Integer> rails = new LinkedHashMap<>();
    fields(node.get("rails"), at + ".rails", false)
        .forEach(
            (k, v) -> {
              if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 0) {
                throw new IllegalArgumentException(
                    at + ".rails." + k + " is " + v + ", not a rail number (0 or more)");
              }
              rails.put(k, v.intValue());
            });
    return new Entry(selector, rails);
  }

  private static Map<String, JsonNode> fields(JsonNode node, String at, boolean optional) {
    if (node == null && optional) {
      return Map.of();
    }
    if (node == null || !node.isObject()) {
      throw new IllegalArgumentException(
          at + " is " + (node == null ? "missing" : "not an object"));
    }
    Map<String, JsonNode> out = new LinkedHashMap<>();
    node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }
}
