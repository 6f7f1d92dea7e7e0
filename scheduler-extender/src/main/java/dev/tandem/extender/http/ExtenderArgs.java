package dev.tandem.extender.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A decoded ExtenderArgs (filter and prioritize body): the pod and the candidate nodes, either as
 * names ({@code nodeCacheCapable: true}) or as Node objects.
 *
 * @param pod the v1.Pod
 * @param names node names, in input order
 * @param nodes the Node objects when the scheduler sent a NodeList; null in names mode
 */
record ExtenderArgs(JsonObject pod, List<String> names, List<JsonObject> nodes) {

  static ExtenderArgs decode(Buffer body) {
    JsonObject args = JsonBodies.object(body);
    Object pod = args.getValue("Pod");
    if (!(pod instanceof JsonObject p)) {
      throw new BadRequest("ExtenderArgs.Pod must be a v1.Pod object");
    }
    Object names = args.getValue("NodeNames");
    if (names != null) {
      return new ExtenderArgs(p, names(names), null);
    }
    Object list = args.getValue("Nodes");
    if (list == null) {
      return new ExtenderArgs(p, List.of(), null);
    }
    if (!(list instanceof JsonObject nodeList)) {
      throw new BadRequest("ExtenderArgs.Nodes must be a v1.NodeList object or null");
    }
    return fromNodeList(p, nodeList);
  }

  private static List<String> names(Object value) {
    if (!(value instanceof JsonArray array)) {
      throw new BadRequest("ExtenderArgs.NodeNames must be an array of strings or null");
    }
    List<String> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof String s)) {
        throw new BadRequest("ExtenderArgs.NodeNames[" + i + "] is not a string");
      }
      out.add(s);
    }
    return out;
  }

  private static ExtenderArgs fromNodeList(JsonObject pod, JsonObject nodeList) {
    Object items = nodeList.getValue("items");
    if (items == null) {
      return new ExtenderArgs(pod, List.of(), List.of());
    }
    if (!(items instanceof JsonArray array)) {
      throw new BadRequest("ExtenderArgs.Nodes.items must be an array");
    }
    List<String> names = new ArrayList<>(array.size());
    List<JsonObject> nodes = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject node)
          || !(node.getValue("metadata") instanceof JsonObject meta)
          || !(meta.getValue("name") instanceof String name)) {
        throw new BadRequest("ExtenderArgs.Nodes.items[" + i + "] has no metadata.name");
      }
      names.add(name);
      nodes.add(node);
    }
    return new ExtenderArgs(pod, names, nodes);
  }
}
