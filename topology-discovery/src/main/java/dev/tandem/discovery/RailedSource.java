package dev.tandem.discovery;

import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * An adapter's machine with its HCAs' rails set by the daemon's rail rule (docs/rails.md; the node
 * daemons give tandem-api's {@code NodeRails}). The rule's notes (a mapping that names an HCA the
 * node lacks, two HCAs on one rail) are notes and warnings of the discovery; a rule that fails (a
 * mapping file that cannot be read, the Node's labels that cannot be) fails the discovery with its
 * message, so that a daemon keeps what it found before.
 */
final class RailedSource implements TopologySource {

  private final TopologySource adapter;
  private final Function<Machine, Rails.Assigned> rails;

  RailedSource(TopologySource adapter, Function<Machine, Rails.Assigned> rails) {
    this.adapter = adapter;
    this.rails = rails;
  }

  @Override
  public Discovery discover() {
    Discovery found = adapter.discover();
    Rails.Assigned assigned;
    try {
      assigned = rails.apply(found.machine());
    } catch (DiscoveryException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new DiscoveryException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
    }
    List<String> notes = new ArrayList<>(found.notes());
    notes.addAll(assigned.notes());
    List<String> warnings = new ArrayList<>(found.warnings());
    warnings.addAll(assigned.notes());
    return new Discovery(assigned.machine(), found.source(), notes, warnings);
  }
}
