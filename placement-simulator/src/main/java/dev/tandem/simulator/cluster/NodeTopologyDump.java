package dev.tandem.simulator.cluster;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;

/**
 * NodeTopology objects as {@code kubectl get nodetopologies -o json} prints them (a {@code List}
 * with {@code items}) or one object, turned into machines by tandem-api's mapper.
 */
final class NodeTopologyDump {

  private NodeTopologyDump() {}

  /**
   * @throws ClusterFileException naming the file, and the line and column for JSON that does not
   *     parse, or the item and field for an object the mapper refuses
   */
  static List<Machine> read(String json, String file) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ClusterFileException(
          file
              + ":"
              + (at == null ? "?" : at.getLineNr() + ":" + at.getColumnNr())
              + ": not JSON: "
              + e.getOriginalMessage(),
          e);
    }
    List<JsonNode> items = new ArrayList<>();
    if (root != null && root.has("items")) {
      root.get("items").forEach(items::add);
    } else if (root != null) {
      items.add(root);
    }
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Machine> out = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      out.add(machine(serialization, items.get(i), file + " item " + i));
    }
    if (out.isEmpty()) {
      throw new ClusterFileException(file + ": no NodeTopology object in it");
    }
    return out;
  }

  private static Machine machine(KubernetesSerialization s, JsonNode item, String where) {
    if (!"NodeTopology".equals(item.path("kind").asText())) {
      throw new ClusterFileException(
          where + ": field 'kind' is '" + item.path("kind").asText() + "', expected NodeTopology");
    }
    try {
      return NodeTopologyMapper.toMachine(s.unmarshal(item.toString(), NodeTopology.class));
    } catch (RuntimeException e) {
      throw new ClusterFileException(where + ": not a valid NodeTopology: " + e.getMessage(), e);
    }
  }
}
