package dev.tandem.extender.verbs;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.GangRailBook;
import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Verdict;
import java.util.SortedSet;

/**
 * The prioritize verb: how well each candidate node would place the pod. A node without a
 * NodeTopology scores {@link #UNGOVERNED} for a pod that asks for one of the two kinds: Tandem has
 * no aligned set to keep free there, so it neither pulls such pods onto its nodes nor pushes them
 * away from a node where they fit well. A pod that asks for both scores 0 there: its alignment is
 * unknown. A gang member scores higher on the nodes that can place it on its gang's rails ({@link
 * GangPlacement}).
 */
public final class PrioritizeVerb {

  /** kube-scheduler's {@code MaxExtenderPriority}. */
  static final int MAX = 10;

  /** The score of a node without a NodeTopology for a pod that asks for GPUs or HCAs only. */
  static final int UNGOVERNED = MAX;

  private final NodeEvaluator evaluator;
  private final GangPlacement gangs;

  /** A prioritize whose gangs' rails are kept in no cluster's book ({@link GangRailBook#alone}). */
  public PrioritizeVerb(NodeEvaluator evaluator) {
    this(evaluator, GangRailBook.alone());
  }

  public PrioritizeVerb(NodeEvaluator evaluator, GangRailBook gangs) {
    this.evaluator = evaluator;
    this.gangs = new GangPlacement(gangs);
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
    if (pod.gang() != null) {
      return allocations == AllocationBudget.UNLIMITED
          ? gangMember(pod, nodes, scores, withoutTopology)
          : null;
    }
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

  /**
   * A gang member: a node that can place it on its gang's rails scores as any pod would there (at
   * least 1); one that cannot scores 0, below every node on them. Without rails to keep to, as any
   * pod.
   */
  private int[] gangMember(PodRequest pod, CandidateNodes nodes, int[] scores, int without) {
    SortedSet<Integer> rails = gangs.rails(pod, nodes, false);
    int least = rails.isEmpty() ? 0 : 1;
    for (int i = 0; i < scores.length; i++) {
      NodeCell cell = nodes.cell(i);
      NodeEntry node = cell == null ? null : cell.entry();
      if (node == null) {
        scores[i] = without;
        continue;
      }
      Verdict a = GangPlacement.onRails(node, pod.request(), rails);
      if (a.feasible()) {
        scores[i] = Math.max(least, Math.min(MAX, a.score()));
      }
    }
    return scores;
  }
}
