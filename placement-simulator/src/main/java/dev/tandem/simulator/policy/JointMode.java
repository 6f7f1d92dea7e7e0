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

  private final boolean binPack;

  /** Joint mode as shipped: ties between equally scored nodes go to the first. */
  public JointMode() {
    this(false);
  }

  /**
   * @param binPack whether kube-scheduler also runs MostAllocated over {@code nvidia.com/gpu}, so
   *     ties go to the fullest node and whole nodes stay free for large pods
   */
  public JointMode(boolean binPack) {
    this.binPack = binPack;
  }

  @Override
  public String name() {
    return binPack ? "joint-binpack" : "joint";
  }

  @Override
  public String description() {
    return "Tandem joint mode: the scheduler plans, the node gives the plan"
        + (binPack ? "; kube-scheduler also packs GPUs (MostAllocated on nvidia.com/gpu)" : "");
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    TandemScheduler.Plan plan = TandemScheduler.plan(pod, state, binPack);
    if (plan == null) {
      return new Decision.Wait("no node can meet the pod's alignment now");
    }
    return new Decision.Placed(
        new Placement(plan.node(), plan.allocation().gpuIds(), plan.allocation().hcaIds()));
  }
}
