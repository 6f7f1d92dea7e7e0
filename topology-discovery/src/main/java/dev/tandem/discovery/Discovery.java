package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Objects;

/**
 * The outcome of a discovery.
 *
 * @param machine the node's topology; empty (no devices) on a node without GPUs or HCAs
 * @param source the source that produced it: {@code hwloc}, {@code hwloc-xml}, {@code sysfs} or
 *     {@code nccl}
 * @param notes what each source found, why a source was skipped or fell back, and the warnings, in
 *     the order they happened (published in the NodeTopology's status)
 * @param warnings the notes an operator should act on (duplicate device ids), logged at WARN
 */
public record Discovery(Machine machine, String source, List<String> notes, List<String> warnings) {

  public Discovery {
    Objects.requireNonNull(machine, "machine");
    Objects.requireNonNull(source, "source");
    notes = List.copyOf(notes);
    warnings = List.copyOf(warnings);
  }

  /** A discovery without warnings. */
  public Discovery(Machine machine, String source, List<String> notes) {
    this(machine, source, notes, List.of());
  }
}
