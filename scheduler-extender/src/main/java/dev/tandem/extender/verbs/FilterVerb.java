package dev.tandem.extender.verbs;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.topology.allocation.Infeasible;

/**
 * The filter verb: which of the candidate nodes can take the pod, and why the others cannot. A node
 * without a NodeTopology is refused only to a pod that {@linkplain PodRequest#needsTopology needs
 * one}.
 */
public final class FilterVerb {

  private final NodeEvaluator evaluator;

  public FilterVerb(NodeEvaluator evaluator) {
    this.evaluator = evaluator;
  }

  /**
   * Which of the nodes can take the pod, and why the others cannot; or null as soon as more than
   * {@code allocations} nodes need the allocator (their answers are neither remembered nor cached):
   * ask again on a worker.
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
    NodeAnswers answers = new NodeAnswers(evaluator, pod, allocations);
    for (int i = 0; i < nodes.size(); i++) {
      if (!answers.next(nodes.cell(i))) {
        return null;
      }
      Infeasible no;
      if (answers.verdict == null) {
        if (pod.needsTopology()) {
          v.fail(i, Outcome.NO_TOPOLOGY_REASON, true, Outcome.NO_TOPOLOGY);
        } else {
          v.pass(i, Outcome.PASSED_WITHOUT_TOPOLOGY);
        }
      } else if ((no = answers.verdict.refusal()) != null) {
        v.fail(i, no.reason(), !no.resolvable(), Outcome.of(no.shortfall()));
      } else {
        v.pass(i, Outcome.PASSED);
      }
    }
    return v;
  }
}
