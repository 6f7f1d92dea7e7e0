package dev.tandem.extender.scheduling;

import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationResult;
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

  /** Which of the nodes can take the pod, and why the others cannot. */
  public FilterVerdict filter(PodRequest pod, List<String> nodes) {
    FilterVerdict v = FilterVerdict.sized(nodes.size());
    NodeEvaluator.Shape shape = pod.interested() && pod.problem() == null
        ? evaluator.shape(pod.request()) : null;
    for (int i = 0; i < nodes.size(); i++) {
      String name = nodes.get(i);
      if (!pod.interested()) {
        v.pass(i, Outcome.NOT_INTERESTED);
      } else if (pod.problem() != null) {
        v.fail(i, pod.problem(), true, Outcome.INVALID_POLICY);
      } else {
        judge(shape, name, i, v);
      }
    }
    return v;
  }

  private void judge(NodeEvaluator.Shape shape, String name, int i, FilterVerdict v) {
    NodeEntry node = state.node(name);
    if (node == null) {
      v.fail(i, Outcome.NO_TOPOLOGY_REASON, true, Outcome.NO_TOPOLOGY);
      return;
    }
    AllocationResult r = evaluator.evaluate(node, shape);
    if (r instanceof Infeasible no) {
      v.fail(i, no.reason(), !no.resolvable(), Outcome.of(no.shortfall()));
    } else {
      v.pass(i, Outcome.PASSED);
    }
  }

  /** 0..10 per node: the allocator's score where the pod fits, 0 elsewhere. */
  public int[] prioritize(PodRequest pod, List<String> nodes) {
    int[] scores = new int[nodes.size()];
    if (!pod.interested() || pod.problem() != null) {
      return scores;
    }
    NodeEvaluator.Shape shape = evaluator.shape(pod.request());
    for (int i = 0; i < scores.length; i++) {
      NodeEntry node = state.node(nodes.get(i));
      if (node != null && evaluator.evaluate(node, shape) instanceof Allocation a) {
        scores[i] = Math.max(0, Math.min(10, a.score()));
      }
    }
    return scores;
  }
}
