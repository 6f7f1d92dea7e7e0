package dev.tandem.extender.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.NodeClassDefault;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The text of {@code --node-class-defaults}: a YAML or JSON list of {@code {nodeSelector: {LABEL:
 * VALUE, ...}, alignment: A, mode: M}} ({@code mode} optional), as the flag, the variable or the
 * file's {@code nodeClassDefaults} list gives it ({@link YamlFile} hands a list on as JSON text).
 * Errors name the entry (from 1) and the field.
 */
public final class NodeClassDefaultsText {

  private static final Set<String> FIELDS = Set.of("nodeSelector", "alignment", "mode");

  private NodeClassDefaultsText() {}

  /**
   * @throws IllegalArgumentException naming the entry and the field that is wrong
   */
  public static List<NodeClassDefault> parse(String text) {
    Object raw;
    try {
      raw = new YAMLMapper().readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "is not a YAML or JSON list: " + e.getOriginalMessage(), e);
    }
    if (raw == null) {
      return List.of();
    }
    if (!(raw instanceof List<?> entries)) {
      throw new IllegalArgumentException(
          "is not a list of {nodeSelector, alignment, mode} entries");
    }
    List<NodeClassDefault> out = new ArrayList<>(entries.size());
    for (int i = 0; i < entries.size(); i++) {
      out.add(entry(i + 1, entries.get(i)));
    }
    return List.copyOf(out);
  }

  private static NodeClassDefault entry(int n, Object raw) {
    if (!(raw instanceof Map<?, ?> fields)) {
      throw new IllegalArgumentException(
          "entry " + n + ": is not a map of nodeSelector, alignment, mode");
    }
    Set<String> unknown = new TreeSet<>();
    fields.keySet().forEach(k -> unknown.add(String.valueOf(k)));
    unknown.removeAll(FIELDS);
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "entry "
              + n
              + ": unknown field "
              + String.join(", ", unknown)
              + "; known: "
              + String.join(", ", new TreeSet<>(FIELDS)));
    }
    Map<String, String> selector = selector(n, fields.get("nodeSelector"));
    Alignment alignment = value(n, "alignment", fields.get("alignment"), Alignment::parse);
    if (alignment == null) {
      throw new IllegalArgumentException(
          "entry " + n + ": alignment is missing (switch, root-complex, numa, none)");
    }
    AlignmentMode mode = value(n, "mode", fields.get("mode"), AlignmentMode::parse);
    return new NodeClassDefault(selector, alignment, mode);
  }

  private static Map<String, String> selector(int n, Object raw) {
    if (!(raw instanceof Map<?, ?> labels) || labels.isEmpty()) {
      throw new IllegalArgumentException(
          "entry "
              + n
              + ": nodeSelector must map at least one node label to its value"
              + " (the default of every node is --default-alignment)");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<?, ?> e : labels.entrySet()) {
      Object v = e.getValue();
      if (v == null || v instanceof Map || v instanceof List) {
        throw new IllegalArgumentException(
            "entry " + n + ": nodeSelector." + e.getKey() + " is not a label value");
      }
      out.put(String.valueOf(e.getKey()), String.valueOf(v));
    }
    return out;
  }

  private static <T> T value(int n, String field, Object raw, Function<String, T> parse) {
    if (raw == null) {
      return null;
    }
    try {
      return parse.apply(String.valueOf(raw).trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("entry " + n + ": " + field + ": " + e.getMessage(), e);
    }
  }
}
