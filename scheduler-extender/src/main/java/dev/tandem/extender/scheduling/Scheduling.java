package dev.tandem.extender.scheduling;

import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeCell;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Infeasible;
import java.util.List;

/** The filter and prioritize decisions, against the current cluster state. */
public final class Scheduling {

  private final ClusterState state;
  private final NodeEvaluator evaluator;

  public Scheduling(ClusterState state, NodeEvaluator evaluator) {
    this.state = state;
    this.evaluator = evaluator;
  }

  public NodeEvaluator evaluator() {
    return evaluator;
  }

  /**
   * How many nodes may need the allocator in a call made on an event loop ({@link
   * #filter(PodRequest, List, int)}): about 0.1 ms of allocator time. A burst of one pod shape
   * finds every other answer remembered; moving a request of thousands of nodes to a worker thread
   * cost more than deciding it.
   */
  public static final int EVENT_LOOP_ALLOCATIONS = 64;

  /** Which of the nodes can take the pod, and why the others cannot. */
  public FilterVerdict filter(PodRequest pod, List<String> nodes) {
    return filter(pod, candidates(nodes), Integer.MAX_VALUE);
  }

  /** Like {@link #filter(PodRequest, CandidateNodes, int)}, for names not yet resolved. */
  public FilterVerdict filter(PodRequest pod, List<String> nodes, int allocations) {
    return filter(pod, candidates(nodes), allocations);
  }

  /**
   * Which of the nodes can take the pod, and why the others cannot; or null as soon as more than
   * {@code allocations} nodes need the allocator (their answers are neither remembered nor cached):
   * ask again on a worker.
   */
  public FilterVerdict filter(PodRequest pod, CandidateNodes nodes, int allocations) {
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
    Answers answers = new Answers(pod, allocations);
    for (int i = 0; i < nodes.size(); i++) {
      if (!answers.next(nodes.cell(i))) {
        return null;
      }
      Infeasible no;
      if (answers.answer == null) {
        v.fail(i, Outcome.NO_TOPOLOGY_REASON, true, Outcome.NO_TOPOLOGY);
      } else if ((no = answers.answer.refusal()) != null) {
        v.fail(i, no.reason(), !no.resolvable(), Outcome.of(no.shortfall()));
      } else {
        v.pass(i, Outcome.PASSED);
      }
    }
    return v;
  }

  /** 0..10 per node: the allocator's score where the pod fits, 0 elsewhere. */
  public int[] prioritize(PodRequest pod, List<String> nodes) {
    return prioritize(pod, candidates(nodes), Integer.MAX_VALUE);
  }

  /** Like {@link #prioritize(PodRequest, CandidateNodes, int)}, for names not yet resolved. */
  public int[] prioritize(PodRequest pod, List<String> nodes, int allocations) {
    return prioritize(pod, candidates(nodes), allocations);
  }

  /**
   * 0..10 per node: the allocator's score where the pod fits, 0 elsewhere; or null as {@link
   * #filter(PodRequest, CandidateNodes, int)}.
   */
  public int[] prioritize(PodRequest pod, CandidateNodes nodes, int allocations) {
    int[] scores = new int[nodes.size()];
    if (!pod.interested() || pod.problem() != null) {
      return scores;
    }
    Answers answers = new Answers(pod, allocations);
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

  private CandidateNodes candidates(List<String> names) {
    return CandidateNodes.of(state.directory(), names);
  }

  /** The allocator's answers for one pod, node after node, within an allocation budget. */
  private final class Answers {
    private final NodeEvaluator.Shape shape;
    private int allocations;

    /** The current node's answer; null when the cluster state does not know the node. */
    NodeCell.Answer answer;

    Answers(PodRequest pod, int allocations) {
      this.shape = evaluator.shape(pod.request());
      this.allocations = allocations;
    }

    /** Moves to the node's cell (null: unknown); false when its answer would exceed the budget. */
    boolean next(NodeCell cell) {
      NodeEntry node = cell == null ? null : cell.entry();
      if (node == null) {
        answer = null;
        return true;
      }
      answer = evaluator.known(cell, node, shape);
      if (answer == null) {
        if (allocations-- <= 0) {
          return false;
        }
        answer = evaluator.allocate(cell, node, shape);
      }
      return true;
    }
  }
}
