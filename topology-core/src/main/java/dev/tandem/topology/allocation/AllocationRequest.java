package dev.tandem.topology.allocation;

import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.Objects;

/**
 * What a pod (or one container) needs on one node.
 *
 * @param gpus number of GPUs
 * @param hcas number of HCA units (HCAs, VFs or shared slots)
 * @param policy alignment policy between them
 */
public record AllocationRequest(int gpus, int hcas, AlignmentPolicy policy) {

  public AllocationRequest {
    if (gpus < 0 || hcas < 0) {
      throw new IllegalArgumentException(
          "device counts cannot be negative: " + gpus + " GPUs, " + hcas + " HCAs");
    }
    Objects.requireNonNull(policy, "policy");
  }

  /** Both kinds requested: the alignment policy applies. */
  public boolean paired() {
    return gpus > 0 && hcas > 0;
  }

  public String describe() {
    return plural(gpus, "GPU") + " + " + plural(hcas, "HCA");
  }

  static String plural(int n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
