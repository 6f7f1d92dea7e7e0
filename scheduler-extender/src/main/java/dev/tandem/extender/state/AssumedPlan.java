package dev.tandem.extender.state;

import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.time.Instant;
import java.util.List;

/**
 * Devices promised to a pod at bind time, counted as taken until the agent reports the pod's real
 * allocation, the pod goes away, or {@code expiresAt} passes.
 */
public record AssumedPlan(PodRef pod, String node, List<String> gpus, List<String> hcas,
    Locality locality, AlignmentPolicy policy, Instant plannedAt, Instant expiresAt) {

  public AssumedPlan {
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }

  public AssumedPlan withExpiry(Instant value) {
    return new AssumedPlan(pod, node, gpus, hcas, locality, policy, plannedAt, value);
  }
}
