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
  private int allocations;

  /** The current node's verdict; null when the cluster state does not know the node. */
  Verdict verdict;

  NodeAnswers(NodeEvaluator evaluator, PodRequest pod, int allocations) {
    this.evaluator = evaluator;
    this.shape = evaluator.shape(pod.request());
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
    verdict = evaluator.known(cell, node, shape);
    if (verdict == null) {
      if (allocations-- <= 0) {
        return false;
      }
      verdict = evaluator.allocate(cell, node, shape);
    }
    return true;
  }
}
