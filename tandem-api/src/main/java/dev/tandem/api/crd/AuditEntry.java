package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

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
 * @param rails the rails of the pod's HCAs on this node's tree, ascending (docs/rails.md); empty,
 *     and absent from the JSON, when none of its HCAs is on a rail
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record AuditEntry(
    String podUid,
    String namespace,
    String pod,
    String worstLocality,
    String policy,
    boolean policyMet,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Integer> rails) {

  public AuditEntry {
    rails = rails == null ? List.of() : List.copyOf(rails);
  }

  /** An entry of a pod none of whose HCAs is on a rail. */
  public AuditEntry(
      String podUid,
      String namespace,
      String pod,
      String worstLocality,
      String policy,
      boolean policyMet) {
    this(podUid, namespace, pod, worstLocality, policy, policyMet, List.of());
  }
}
