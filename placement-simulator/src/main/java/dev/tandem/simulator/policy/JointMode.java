package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import java.util.Random;

/**
 * Tandem joint mode: the scheduler plans (filter, prioritize, bind as {@link TandemScheduler}), and
 * Tandem's plugin serves both {@code nvidia.com/gpu} and {@code rdma/hca}, so the node gives
 * exactly the plan (docs/joint-mode.md; measured 60/60 on the planned devices in the end-to-end
 * harness). A pod no node can align waits.
 */
public final class JointMode implements PlacementPolicy {

  private final NodeRanking ranking;
  private final boolean gangs;

  /** Joint mode as shipped: nodes ranked by the allocator's score (the extender's prioritize). */
  public JointMode() {
    this(NodeRanking.SCORE);
  }

  /** Joint mode with another node ranking, for what-if runs. */
  public JointMode(NodeRanking ranking) {
    this(ranking, true);
  }

  private JointMode(NodeRanking ranking, boolean gangs) {
    this.ranking = ranking;
    this.gangs = gangs;
  }

  /**
   * What-if: joint mode as shipped but every pod planned alone, gangs ignored (the extender before
   * it planned a gang's members on one rail set).
   */
  public static JointMode withoutGangs() {
    return new JointMode(NodeRanking.SCORE, false);
  }

  @Override
  public String name() {
    if (!gangs) {
      return "joint-no-gangs";
    }
    return switch (ranking) {
      case SCORE -> "joint";
      case SCORE_THEN_MOST_ALLOCATED -> "joint-binpack";
      case SMALLEST_NODE_FIRST -> "joint-smallest-first";
    };
  }

  @Override
  public String description() {
    if (!gangs) {
      return "Tandem joint mode; what-if: gangs ignored, every pod planned alone";
    }
    return "Tandem joint mode: the scheduler plans, the node gives the plan"
        + switch (ranking) {
          case SCORE -> "";
          case SCORE_THEN_MOST_ALLOCATED ->
              "; what-if: ties to the node with the fewest free GPUs (MostAllocated)";
          case SMALLEST_NODE_FIRST -> "; what-if: smallest nodes first, then the fullest";
        };
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    TandemScheduler.Plan plan = TandemScheduler.plan(pod, state, ranking, random, gangs);
    if (plan == null) {
      return new Decision.Wait("no node can meet the pod's alignment now");
    }
    return new Decision.Placed(
        new Placement(plan.node(), plan.allocation().gpuIds(), plan.allocation().hcaIds()));
  }
}
