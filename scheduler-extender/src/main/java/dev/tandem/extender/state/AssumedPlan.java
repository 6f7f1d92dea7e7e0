package dev.tandem.extender.state;

import dev.tandem.api.plan.Plan;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.request.ContainerShare;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Devices promised to a pod at bind time, counted as taken until the agent reports the pod's real
 * allocation, the pod goes away, or {@code expiresAt} passes.
 */
public record AssumedPlan(
    PodRef pod,
    String node,
    List<String> gpus,
    List<String> hcas,
    Locality locality,
    AlignmentPolicy policy,
    Instant plannedAt,
    Instant expiresAt,
    List<ContainerShare> containers) {

  public AssumedPlan {
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
    containers = List.copyOf(containers);
  }

  /** The plan as the pod's {@code tandem.dev/plan} annotation carries it. */
  public Plan plan() {
    return new Plan(node, gpus, hcas, locality.name(), policy.toString(), plannedAt, containers);
  }

  /**
   * A plan read back from a pod's annotation, expiring {@code ttl} after it was made; an absent
   * locality reads as {@code SYS} and an absent policy as {@code switch/required}.
   */
  public static AssumedPlan restored(PodRef pod, Plan plan, Duration ttl) {
    AlignmentPolicy p =
        plan.policy() == null ? AlignmentPolicy.DEFAULT : AlignmentPolicy.parse(plan.policy());
    Locality locality = Locality.parse(plan.locality() == null ? "SYS" : plan.locality());
    return new AssumedPlan(
        pod,
        plan.node(),
        plan.gpus(),
        plan.hcas(),
        locality,
        p,
        plan.plannedAt(),
        plan.plannedAt().plus(ttl),
        plan.containers());
  }
}
