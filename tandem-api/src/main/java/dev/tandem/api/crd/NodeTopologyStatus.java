package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What the agent observed last.
 *
 * @param observedAt when the tree and allocations were read, RFC 3339
 * @param allocations devices the kubelet reports per container (PodResources {@code List})
 * @param audit the actual GPU/HCA locality of every pod holding both
 * @param notes human-readable remarks: discovery warnings and failures, audit waiting for the
 *     kubelet
 * @param units the kubelet's devices per device of the tree, for each governed resource whose every
 *     allocatable id maps to the tree; a resource absent here was not counted (the kubelet was not
 *     reached, or it hands out ids that stand for no device of the tree)
 * @param mig the MIG devices of each GPU with MIG enabled, as NVML reports them; empty when the
 *     kubelet reports no MIG device or NVML could not be read
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record NodeTopologyStatus(
    String observedAt,
    List<AllocationEntry> allocations,
    List<AuditEntry> audit,
    List<String> notes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<UnitEntry> units,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MigEntry> mig) {

  public NodeTopologyStatus {
    allocations = allocations == null ? List.of() : List.copyOf(allocations);
    audit = audit == null ? List.of() : List.copyOf(audit);
    notes = notes == null ? List.of() : List.copyOf(notes);
    units = units == null ? List.of() : List.copyOf(units);
    mig = mig == null ? List.of() : List.copyOf(mig);
  }

  /** A status without MIG devices. */
  public NodeTopologyStatus(
      String observedAt,
      List<AllocationEntry> allocations,
      List<AuditEntry> audit,
      List<String> notes,
      List<UnitEntry> units) {
    this(observedAt, allocations, audit, notes, units, List.of());
  }

  /** A status with no units counted. */
  public NodeTopologyStatus(
      String observedAt,
      List<AllocationEntry> allocations,
      List<AuditEntry> audit,
      List<String> notes) {
    this(observedAt, allocations, audit, notes, List.of(), List.of());
  }

  /** The same status observed at another time. */
  public NodeTopologyStatus withObservedAt(String value) {
    return new NodeTopologyStatus(value, allocations, audit, notes, units, mig);
  }
}
