package dev.tandem.topology.allocation;

import dev.tandem.topology.model.Locality;

/**
 * What the allocator answers for a request on a node, without the devices it would choose: all that
 * kube-scheduler's filter and prioritize need.
 *
 * @param refusal why the request cannot be met; null when it can
 * @param worst the allocation's worst locality ({@link Allocation#worst()}); null when refused
 * @param score the allocation's score ({@link Allocation#score()}); 0 when refused
 */
public record Verdict(Infeasible refusal, Locality worst, int score) {

  public static Verdict of(AllocationResult result) {
    return result instanceof Allocation a
        ? new Verdict(null, a.worst(), a.score())
        : new Verdict((Infeasible) result, null, 0);
  }

  static Verdict refused(Infeasible refusal) {
    return new Verdict(refusal, null, 0);
  }

  public boolean feasible() {
    return refusal == null;
  }
}
