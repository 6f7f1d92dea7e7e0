package dev.tandem.extender.verbs;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.NodeCell;

/** The prioritize verb: how well each candidate node would place the pod. */
public final class PrioritizeVerb {

  private final NodeEvaluator evaluator;

  public PrioritizeVerb(NodeEvaluator evaluator) {
    this.evaluator = evaluator;
  }

  /**
   * 0..10 per node: the allocator's score where the pod fits, 0 elsewhere; or null as soon as more
   * than {@code allocations} nodes need the allocator, as {@link FilterVerb#verdict}.
   *
   * @param allocations an {@link AllocationBudget}
   */
  public int[] scores(PodRequest pod, CandidateNodes nodes, int allocations) {
    int[] scores = new int[nodes.size()];
    if (!pod.interested() || pod.problem() != null) {
      return scores;
    }
    NodeAnswers answers = new NodeAnswers(evaluator, pod, allocations);
    for (int i = 0; i < scores.length; i++) {
      if (!answers.next(nodes.cell(i))) {
        return null;
      }
      NodeCell.Answer a = answers.answer;
      if (a != null && a.refusal() == null) {
        scores[i] = Math.max(0, Math.min(10, a.score()));
      }
    }
    return scores;
  }
}
