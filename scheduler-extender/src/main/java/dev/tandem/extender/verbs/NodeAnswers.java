package dev.tandem.extender.verbs;

import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Verdict;

/**
 * The allocator's answers for one pod, node after node, within an allocation budget: what filter
 * and prioritize both walk.
 */
final class NodeAnswers {

  private final NodeEvaluator evaluator;
  private final NodeEvaluator.Shape shape;
  private final ClassRequests byClass;

  /** The shape of the pod's request on each node class, made when a node of it is first met. */
  private NodeEvaluator.Shape[] classShapes;

  private int allocations;

  /** The current node's verdict; null when the cluster state does not know the node. */
  Verdict verdict;

  NodeAnswers(NodeEvaluator evaluator, PodRequest pod, int allocations) {
    this.evaluator = evaluator;
    this.shape = evaluator.shape(pod.request());
    this.byClass = pod.byClass();
    this.allocations = allocations;
  }

  /** Moves to the node's cell (null: unknown); false when its answer would exceed the budget. */
  boolean next(NodeCell cell) {
    NodeEntry node = cell == null ? null : cell.entry();
    if (node == null) {
      verdict = null;
      return true;
    }
    // whole GPUs and HCAs are judged from counts in the shared state: known, no budget spent
    NodeEvaluator.Shape s = byClass.any() ? shapeOn(node) : shape;
    verdict = evaluator.known(cell, node, s);
    if (verdict == null) {
      if (allocations-- <= 0) {
        return false;
      }
      verdict = evaluator.allocate(cell, node, s);
    }
    return true;
  }

  /** The shape of the pod's request on this node: its class's, when a class changes it. */
  private NodeEvaluator.Shape shapeOn(NodeEntry node) {
    int c = byClass.classOf(node.name());
    if (c < 0) {
      return shape;
    }
    if (classShapes == null) {
      classShapes = new NodeEvaluator.Shape[byClass.size()];
    }
    NodeEvaluator.Shape s = classShapes[c];
    if (s == null) {
      s = evaluator.shape(byClass.at(c));
      classShapes[c] = s;
    }
    return s;
  }
}
