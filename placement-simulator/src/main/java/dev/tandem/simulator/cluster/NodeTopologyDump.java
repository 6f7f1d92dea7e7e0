package dev.tandem.simulator.cluster;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * NodeTopology objects as {@code kubectl get nodetopologies -o json} prints them (a {@code List}
 * with {@code items}), one object, or a bare array of them, turned into machines by tandem-api's
 * mapper. Errors name the file and the line where the item at fault starts.
 */
final class NodeTopologyDump {

  private static final ObjectMapper JSON = new ObjectMapper();

  private NodeTopologyDump() {}

  /** One object of the dump and the line it starts on. */
  private record Item(int line, JsonNode json) {}

  /**
   * @throws ClusterFileException naming the file, and the line and column for JSON that does not
   *     parse, or the item's line and the field for an object that is not a valid NodeTopology
   */
  static List<Machine> read(String json, String file) {
    List<Item> items;
    try (JsonParser p = JSON.getFactory().createParser(json)) {
      items = items(p, file);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ClusterFileException(
          file
              + ":"
              + (at == null ? "?" : at.getLineNr() + ":" + at.getColumnNr())
              + ": not JSON: "
              + e.getOriginalMessage(),
          e);
    } catch (IOException e) {
      throw new ClusterFileException(file + ": cannot read as JSON: " + e.getMessage(), e);
    }
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Machine> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      Item item = items.get(i);
      out.add(machine(serialization, item.json(), file + ":" + item.line() + ": item " + (i + 1)));
    }
    if (out.isEmpty()) {
      throw new ClusterFileException(file + ": no NodeTopology object in it");
    }
    return out;
  }

  private static List<Item> items(JsonParser p, String file) throws IOException {
    JsonToken first = p.nextToken();
    int line = p.currentTokenLocation().getLineNr();
    if (first == JsonToken.START_ARRAY) {
      return elements(p, file);
    }
    if (first != JsonToken.START_OBJECT) {
      throw new ClusterFileException(
          file + ":" + line + ": expected a JSON object (a List or a NodeTopology)");
    }
    List<Item> items = null;
    ObjectNode root = JSON.createObjectNode();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      if (p.nextToken() == JsonToken.START_ARRAY && field.equals("items")) {
        items = elements(p, file);
      } else {
        root.set(field, JSON.readTree(p));
      }
    }
    return items != null ? items : List.of(new Item(line, root));
  }

  /** The objects of an array, the parser on its start; leaves the parser on its end. */
  private static List<Item> elements(JsonParser p, String file) throws IOException {
    List<Item> out = new ArrayList<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      int line = p.currentTokenLocation().getLineNr();
      if (t != JsonToken.START_OBJECT) {
        throw new ClusterFileException(
            file + ":" + line + ": item " + (out.size() + 1) + " is not a JSON object");
      }
      out.add(new Item(line, JSON.readTree(p)));
    }
    return out;
  }

  private static Machine machine(KubernetesSerialization s, JsonNode item, String where) {
    if (!"NodeTopology".equals(item.path("kind").asText())) {
      throw new ClusterFileException(
          where + ": field 'kind' is '" + item.path("kind").asText() + "', expected NodeTopology");
    }
    String name = item.path("metadata").path("name").asText("?");
    NodeTopology resource;
    try {
      resource = s.unmarshal(item.toString(), NodeTopology.class);
    } catch (RuntimeException e) {
      throw new ClusterFileException(
          where + " (" + name + "): not a valid NodeTopology: " + fieldProblem(e), e);
    }
    try {
      return NodeTopologyMapper.toMachine(resource);
    } catch (RuntimeException e) {
      throw new ClusterFileException(where + " (" + name + "): " + e.getMessage(), e);
    }
  }

  /**
   * Jackson's complaint with the path of the field it was reading, e.g. {@code spec.pcie[2].id}.
   */
  private static String fieldProblem(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof JsonMappingException m && !m.getPath().isEmpty()) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
          if (r.getFieldName() != null) {
            path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
          } else if (r.getIndex() >= 0) {
            path.append('[').append(r.getIndex()).append(']');
          }
        }
        return "field '" + path + "': " + m.getOriginalMessage();
      }
    }
    return e.getMessage();
  }
}
