package dev.tandem.topology.policy;

import java.util.Map;

/**
 * The alignment policy of pods without the alignment annotations on one class of nodes, chosen by
 * node labels (for example the Grace trays without ConnectX-8 Data Direct, where {@code switch}
 * refuses every GPU+HCA pod and {@code numa} is the best there is). A pod's own annotations still
 * win, each over its part of the default.
 *
 * @param nodeSelector labels a node must carry, each with exactly this value; never empty (a
 *     default for every node is the cluster-wide one)
 * @param alignment the class's default alignment
 * @param mode the class's default mode; null for the cluster-wide default mode
 */
public record NodeClassDefault(
    Map<String, String> nodeSelector, Alignment alignment, AlignmentMode mode) {

  public NodeClassDefault {
    if (nodeSelector == null || nodeSelector.isEmpty()) {
      throw new IllegalArgumentException("a node class needs at least one label in nodeSelector");
    }
    if (alignment == null) {
      throw new IllegalArgumentException("a node class needs an alignment");
    }
    nodeSelector = Map.copyOf(nodeSelector);
  }

  /** Whether a node with these labels belongs to the class: it carries every selected label. */
  public boolean matches(Map<String, String> labels) {
    if (labels == null) {
      return false;
    }
    for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** The class's default policy, its mode the cluster-wide one's when it names none. */
  public AlignmentPolicy policy(AlignmentPolicy clusterDefault) {
    return new AlignmentPolicy(alignment, mode != null ? mode : clusterDefault.mode());
  }
}
