package dev.tandem.simulator.policy;

import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Tandem hint mode, modelled on what the end-to-end harness measured of the kubelet
 * (docs/performance.md, "Alignment achieved on a node"): the scheduler plans as in joint mode, then
 * the kubelet allocates {@code nvidia.com/gpu} before {@code rdma/hca} 7 times in 8 (Go ≥ 1.24 map
 * order). The GPU plugin does not know the plan: its GPUs are the kubelet's own random pick (the
 * harness's GPU plugin gives no preference). When GPUs come first, Tandem's HCA plugin gives the
 * HCAs nearest them (the allocator pairing HCAs with exactly those GPUs); when HCAs come first, it
 * gives the plan's HCAs.
 */
public final class HintMode implements PlacementPolicy {

  /** Share of admissions where the kubelet allocates GPUs first, as measured: 7 in 8. */
  public static final double GPUS_FIRST = 7.0 / 8;

  private static final AlignmentPolicy NEAREST =
      new AlignmentPolicy(Alignment.NONE, AlignmentMode.PREFERRED);

  @Override
  public String name() {
    return "hint";
  }

  @Override
  public String description() {
    return "Tandem hint mode: the scheduler plans; the kubelet allocates GPUs first 7 times in 8,"
        + " the GPU plugin ignores the plan, HCAs follow the GPUs (else the plan)";
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    TandemScheduler.Plan plan = TandemScheduler.plan(pod, state, NodeRanking.SCORE, random);
    if (plan == null) {
      return new Decision.Wait("no node can meet the pod's alignment now");
    }
    Allocator allocator = state.node(plan.node()).node().allocator();
    Availability free = state.node(plan.node()).free();
    boolean gpusFirst = random.nextDouble() < GPUS_FIRST;
    List<String> hcas = plan.allocation().hcaIds();
    List<String> gpus = KubeletChoice.random(free, DeviceKind.GPU, pod.gpus(), d -> true, random);
    if (gpusFirst && pod.hcas() > 0) {
      hcas = nearest(allocator, free, gpus, pod.hcas());
    }
    return new Decision.Placed(new Placement(plan.node(), gpus, hcas, plan.allocation().hcaIds()));
  }

  /** The HCAs Tandem's plugin offers next to GPUs already allocated. */
  static List<String> nearest(Allocator allocator, Availability free, List<String> gpus, int hcas) {
    List<String> others = new ArrayList<>();
    for (Device d : free.index().machine().gpus()) {
      if (!gpus.contains(d.id())) {
        others.add(d.id());
      }
    }
    AllocationResult r =
        allocator.allocate(new AllocationRequest(gpus.size(), hcas, NEAREST), free.without(others));
    return r instanceof Allocation a ? a.hcaIds() : List.of();
  }
}
