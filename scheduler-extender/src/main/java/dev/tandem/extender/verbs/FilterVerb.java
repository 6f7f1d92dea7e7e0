package dev.tandem.extender.verbs;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.GangRailBook;
import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Infeasible;
import dev.tandem.topology.allocation.Verdict;
import java.util.SortedSet;

/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. A node
 * without a NodeTopology is refused only to a pod that {@linkplain PodRequest#needsTopology needs
 * one}. A gang member whose rail alignment is {@code required} is also refused on a node that
 * cannot place it on its gang's rails ({@link GangPlacement}).
 */
public final class FilterVerb {

  private final NodeEvaluator evaluator;
  private final GangPlacement gangs;

  /** A filter whose gangs' rails are kept in no cluster's book ({@link GangRailBook#alone}). */
  public FilterVerb(NodeEvaluator evaluator) {
    this(evaluator, GangRailBook.alone());
  }

  public FilterVerb(NodeEvaluator evaluator, GangRailBook gangs) {
    this.evaluator = evaluator;
    this.gangs = new GangPlacement(gangs);
  }

  /**
   * Which of the nodes can take the pod, and why the others cannot; or null as soon as more than
   * {@code allocations} nodes need the allocator (their answers are neither remembered nor cached):
   * ask again on a worker. A gang member is always judged on a worker (null unless {@code
   * allocations} is {@link AllocationBudget#UNLIMITED}).
   *
   * @param allocations an {@link AllocationBudget}
   */
  public FilterVerdict verdict(PodRequest pod, CandidateNodes nodes, int allocations) {
    if (!pod.interested()) {
      return FilterVerdict.allPassed(nodes.size(), Outcome.NOT_INTERESTED);
    }
    FilterVerdict v = FilterVerdict.sized(nodes.size());
    if (pod.problem() != null) {
      for (int i = 0; i < nodes.size(); i++) {
        v.fail(i, pod.problem(), true, Outcome.INVALID_POLICY);
      }
      return v;
    }
    if (pod.gang() != null) {
      return allocations == AllocationBudget.UNLIMITED ? gangMember(pod, nodes, v) : null;
    }
    NodeAnswers answers = new NodeAnswers(evaluator, pod, allocations);
    for (int i = 0; i < nodes.size(); i++) {
      if (!answers.next(nodes.cell(i))) {
        return null;
      }
      judge(v, i, pod, answers.verdict);
    }
    return v;
  }

  private static void judge(FilterVerdict v, int i, PodRequest pod, Verdict verdict) {
    Infeasible no;
    if (verdict == null) {
      if (pod.needsTopology()) {
        v.fail(i, Outcome.NO_TOPOLOGY_REASON, true, Outcome.NO_TOPOLOGY);
      } else {
        v.pass(i, Outcome.PASSED_WITHOUT_TOPOLOGY);
      }
    } else if ((no = verdict.refusal()) != null) {
      v.fail(i, no.reason(), !no.resolvable(), Outcome.of(no.shortfall()));
    } else {
      v.pass(i, Outcome.PASSED);
    }
  }

  /**
   * A gang member: judged as any pod, and where its rails are {@code required}, also on its gang's
   * rails (chosen now over these nodes when the gang has none).
   */
  private FilterVerdict gangMember(PodRequest pod, CandidateNodes nodes, FilterVerdict v) {
    SortedSet<Integer> rails = gangs.rails(pod, nodes, true);
    boolean required = pod.railsRequired() && !rails.isEmpty();
    for (int i = 0; i < nodes.size(); i++) {
      NodeCell cell = nodes.cell(i);
      NodeEntry node = cell == null ? null : cell.entry();
      Verdict plain = node == null ? null : evaluator.evaluate(node, pod.request());
      if (!required || plain == null || !plain.feasible()) {
        judge(v, i, pod, plain);
        continue;
      }
      Infeasible no = GangPlacement.onRails(node, pod.request(), rails).refusal();
      if (no == null) {
        v.pass(i, Outcome.PASSED);
      } else {
        v.fail(i, GangPlacement.refusal(pod, rails, no), !no.resolvable(), Outcome.GANG_RAILS);
      }
    }
    return v;
  }
}
