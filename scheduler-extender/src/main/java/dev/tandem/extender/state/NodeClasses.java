package dev.tandem.extender.state;

import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.NodeClassDefault;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which node-class default ({@link NodeClassDefault}) each node falls under, decided from its
 * labels when its Node object is seen: the first entry whose labels it carries. Only the nodes of
 * some class are kept, by the entry's position; a filter then costs one lookup per node for pods
 * whose policy some class would change, and none at all when no class is configured.
 */
public final class NodeClasses {

  private static final NodeClasses NONE = new NodeClasses(List.of(), AlignmentPolicy.DEFAULT);

  private final List<NodeClassDefault> classes;
  private final List<AlignmentPolicy> defaults;
  private final Map<String, Integer> classOf = new ConcurrentHashMap<>();

  /**
   * @param classes the entries, in the order they are tried
   * @param clusterDefault the policy of pods without the annotations elsewhere; a class without a
   *     mode takes its mode
   */
  public NodeClasses(List<NodeClassDefault> classes, AlignmentPolicy clusterDefault) {
    this.classes = List.copyOf(classes);
    this.defaults = this.classes.stream().map(c -> c.policy(clusterDefault)).toList();
  }

  /** No node classes: every node has the cluster-wide default. */
  public static NodeClasses none() {
    return NONE;
  }

  /** Whether no class is configured. */
  public boolean isEmpty() {
    return classes.isEmpty();
  }

  /** How many classes are configured; classes are numbered {@code 0..size()-1}. */
  public int size() {
    return classes.size();
  }

  /** The default policy of pods without the annotations on nodes of class {@code c}. */
  public AlignmentPolicy policy(int c) {
    return defaults.get(c);
  }

  /** The node's Node object was seen with these labels (null: none). */
  public void labels(String node, Map<String, String> labels) {
    for (int c = 0; c < classes.size(); c++) {
      if (classes.get(c).matches(labels)) {
        classOf.put(node, c);
        return;
      }
    }
    classOf.remove(node);
  }

  /** The node's Node object was deleted. */
  public void gone(String node) {
    classOf.remove(node);
  }

  /** The node's class, or -1 when it belongs to none (or its labels were never seen). */
  public int classOf(String node) {
    if (classes.isEmpty()) {
      return -1;
    }
    Integer c = classOf.get(node);
    return c == null ? -1 : c;
  }
}
