package dev.tandem.agent.audit;

import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.Locale;

/**
 * A pod whose GPUs and HCAs are further apart than its policy allows.
 *
 * @param uid the pod's uid
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param worst the actual worst locality
 * @param policy the pod's policy
 * @param gpu a GPU of the worst pair
 * @param hca an HCA of the worst pair
 */
public record Violation(
    String uid,
    String namespace,
    String pod,
    Locality worst,
    AlignmentPolicy policy,
    String gpu,
    String hca) {

  public static final String REASON = "AlignmentNotMet";

  /** E.g. {@code GPU-… and mlx5_3 are NODE apart; tandem.dev/alignment=switch allows PXB}. */
  public String message() {
    return gpu
        + " and "
        + hca
        + " are "
        + worst
        + " apart; "
        + AlignmentPolicy.ALIGNMENT_ANNOTATION
        + "="
        + policy.alignment().value()
        + " allows "
        + policy.alignment().worstAllowed()
        + " ("
        + worst.meaning().toLowerCase(Locale.ROOT)
        + ")";
  }
}
