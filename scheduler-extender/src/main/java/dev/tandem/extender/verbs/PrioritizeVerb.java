package dev.tandem.extender.verbs;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.topology.allocation.Verdict;

/**
 * The prioritize verb: how well each candidate node would place the pod. A node without a
 * NodeTopology scores {@link #UNGOVERNED} for a pod that asks for one of the two kinds: Tandem has
 * no aligned set to keep free there, so it neither pulls such pods onto its nodes nor pushes them
 * away from a node where they fit well. A pod that asks for both scores 0 there: its alignment is
 * unknown.
 */
public final class PrioritizeVerb {

  /** kube-scheduler's {@code MaxExtenderPriority}. */
  static final int MAX = 10;

  /** The score of a node without a NodeTopology for a pod that asks for GPUs or HCAs only. */
  static final int UNGOVERNED = MAX;

  private final NodeEvaluator evaluator;

  public PrioritizeVerb(NodeEvaluator evaluator) {
    this.evaluator = evaluator;
  }

  /**
   * 0..10 per node: the allocator's score where the pod fits, 0 where it does not, {@link
   * #UNGOVERNED} or 0 where the node has no NodeTopology; or null as soon as more than {@code
   * allocations} nodes need the allocator, as {@link FilterVerb#verdict}.
   *
   * @param allocations an {@link AllocationBudget}
   */
  public int[] scores(PodRequest pod, CandidateNodes nodes, int allocations) {
    int[] scores = new int[nodes.size()];
    if (!pod.interested() || pod.problem() != null) {
      return scores;
    }
    int withoutTopology = pod.request().paired() ? 0 : UNGOVERNED;
    NodeAnswers answers = new NodeAnswers(evaluator, pod, allocations);
    for (int i = 0; i < scores.length; i++) {
      if (!answers.next(nodes.cell(i))) {
        return null;
      }
      Verdict a = answers.verdict;
      if (a == null) {
        scores[i] = withoutTopology;
      } else if (a.refusal() == null) {
        scores[i] = Math.max(0, Math.min(MAX, a.score()));
      }
    }
    return scores;
  }
}
