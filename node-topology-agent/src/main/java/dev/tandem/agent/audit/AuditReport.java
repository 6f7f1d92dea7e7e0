package dev.tandem.agent.audit;

import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import java.util.List;

/**
 * One audit pass.
 *
 * @param allocations per container and resource, for {@code status.allocations}
 * @param audit per pod holding both GPUs and HCAs (complete allocations only), for {@code
 *     status.audit}
 * @param violations pods whose policy is not met
 * @param notes problems worth an operator's attention (unknown device ids, invalid annotations)
 */
public record AuditReport(
    List<AllocationEntry> allocations,
    List<AuditEntry> audit,
    List<Violation> violations,
    List<String> notes) {

  public AuditReport {
    allocations = List.copyOf(allocations);
    audit = List.copyOf(audit);
    violations = List.copyOf(violations);
    notes = List.copyOf(notes);
  }
}
