package dev.tandem.agent.audit;

import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.crd.UnitEntry;
import java.util.List;

/**
 * One audit pass.
 *
 * @param allocations per container and resource, for {@code status.allocations}
 * @param audit per pod holding both GPUs and HCAs (complete allocations only), for {@code
 *     status.audit}
 * @param violations pods whose policy is not met
 * @param notes problems worth an operator's attention (unknown device ids, invalid annotations)
 * @param units the kubelet's devices per device of the tree, for {@code status.units}
 * @param mig the MIG devices of each GPU, for {@code status.mig}
 */
public record AuditReport(
    List<AllocationEntry> allocations,
    List<AuditEntry> audit,
    List<Violation> violations,
    List<String> notes,
    List<UnitEntry> units,
    List<MigEntry> mig) {

  public AuditReport {
    allocations = List.copyOf(allocations);
    audit = List.copyOf(audit);
    violations = List.copyOf(violations);
    notes = List.copyOf(notes);
    units = List.copyOf(units);
    mig = List.copyOf(mig);
  }

  /** A report with no units counted. */
  public AuditReport(
      List<AllocationEntry> allocations,
      List<AuditEntry> audit,
      List<Violation> violations,
      List<String> notes) {
    this(allocations, audit, violations, notes, List.of(), List.of());
  }
}
