package dev.tandem.api.plan;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the scheduler extender decided for a pod at bind time, as the {@code tandem.dev/plan}
 * annotation carries it to the node, e.g. {@code {"node":"n1","gpus":["GPU-…"],"hcas":["mlx5_0"],
 * "locality":"PIX","policy":"switch/required","plannedAt":"2026-11-22T03:00:00Z"}}.
 *
 * @param node the node the pod was bound to
 * @param gpus the planned GPU ids as the kubelet reports them
 * @param hcas the planned HCA ids as the allocator returns them (ibverbs names; in shared mode an
 *     HCA repeats once per slot)
 * @param locality the worst GPU↔HCA locality of the plan, e.g. {@code PIX}; null when unknown
 * @param policy the alignment policy, e.g. {@code switch/required}; null when unknown
 * @param plannedAt when the plan was made
 */
public record Plan(
    String node,
    List<String> gpus,
    List<String> hcas,
    String locality,
    String policy,
    Instant plannedAt) {

  public Plan {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(plannedAt, "plannedAt");
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }
}
