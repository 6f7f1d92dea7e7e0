package dev.tandem.api.crd;

/**
 * The actual alignment of one pod holding both GPUs and HCAs.
 *
 * @param podUid the pod's uid
 * @param namespace the pod's namespace
 * @param pod the pod's name
 * @param worstLocality the worst locality between any of its GPUs and the nearest of its HCAs (and
 *     the reverse), e.g. {@code PIX}
 * @param policy the pod's policy, e.g. {@code switch/required}
 * @param policyMet whether the worst locality is within the policy's alignment
 */
public record AuditEntry(
    String podUid,
    String namespace,
    String pod,
    String worstLocality,
    String policy,
    boolean policyMet) {}
