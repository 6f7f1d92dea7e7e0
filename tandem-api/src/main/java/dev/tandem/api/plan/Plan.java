package dev.tandem.api.plan;

import dev.tandem.topology.request.ContainerShare;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the scheduler extender decided for a pod at bind time, as the {@code tandem.dev/plan}
 * annotation carries it to the node, e.g. {@code {"node":"n1","gpus":["GPU-…"],"hcas":["mlx5_0"],
 * "locality":"PIX","policy":"switch/required","plannedAt":"2026-11-22T03:00:00Z",
 * "containers":[{"name":"train","gpus":["GPU-…"],"hcas":["mlx5_0"]}]}}.
 *
 * @param node the node the pod was bound to
 * @param gpus the planned GPU ids as the kubelet reports them
 * @param hcas the planned HCA ids as the allocator returns them (ibverbs names; in shared mode an
 *     HCA repeats once per slot)
 * @param locality the worst GPU↔HCA locality of the plan, e.g. {@code PIX}; null when unknown
 * @param policy the alignment policy, e.g. {@code switch/required}; null when unknown
 * @param plannedAt when the plan was made
 * @param containers which of the planned devices each container gets, init containers first (as the
 *     kubelet admits them; an ended init container's devices reused by the app containers appear in
 *     both); empty in a plan written before per-container shares, or when no container asks for
 *     devices
 */
public record Plan(
    String node,
    List<String> gpus,
    List<String> hcas,
    String locality,
    String policy,
    Instant plannedAt,
    List<ContainerShare> containers) {

  public Plan {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(plannedAt, "plannedAt");
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
    containers = List.copyOf(containers);
  }

  /** A plan for the pod as a whole, without per-container shares. */
  public Plan(
      String node,
      List<String> gpus,
      List<String> hcas,
      String locality,
      String policy,
      Instant plannedAt) {
    this(node, gpus, hcas, locality, policy, plannedAt, List.of());
  }

  /** The same plan with these per-container shares. */
  public Plan withContainers(List<ContainerShare> shares) {
    return new Plan(node, gpus, hcas, locality, policy, plannedAt, shares);
  }

  /** The share of the named container, when the plan has one. */
  public Optional<ContainerShare> container(String name) {
    return containers.stream().filter(c -> c.name().equals(name)).findFirst();
  }
}
