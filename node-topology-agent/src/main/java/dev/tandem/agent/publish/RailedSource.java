package dev.tandem.agent.publish;

import dev.tandem.api.rail.RailMap;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.TopologySource;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The node's topology with its HCAs' rails (docs/rails.md): from the operator's mapping ({@code
 * --rail-map}, read again at every discovery, the entry chosen by the Node's labels), else by PCI
 * order. No fabric source is read: none tells a node's rails without new privileges (docs/rails.md,
 * "Why not the fabric"). A mapping that names what the node lacks is a note; a file that cannot be
 * read fails the discovery, naming the file, so that the last good topology stays published.
 */
public final class RailedSource implements TopologySource {

  private final TopologySource machine;
  private final Path railMap;
  private final Supplier<Map<String, String>> nodeLabels;

  /**
   * @param machine where the machine is read
   * @param railMap the operator's mapping, or null for rails by PCI order
   * @param nodeLabels the Node's labels, read (blocking) only when there is a mapping
   */
  public RailedSource(
      TopologySource machine, Path railMap, Supplier<Map<String, String>> nodeLabels) {
    this.machine = Objects.requireNonNull(machine, "machine");
    this.railMap = railMap;
    this.nodeLabels = Objects.requireNonNull(nodeLabels, "nodeLabels");
  }

  @Override
  public Discovery discover() {
    Discovery found = machine.discover();
    List<String> notes = new ArrayList<>(found.notes());
    Rails.Assigned rails = rails(found.machine(), notes);
    notes.addAll(rails.notes());
    List<String> warnings = new ArrayList<>(found.warnings());
    warnings.addAll(rails.notes());
    return new Discovery(rails.machine(), found.source(), notes, warnings);
  }

  private Rails.Assigned rails(Machine m, List<String> notes) {
    if (railMap == null) {
      return Rails.byPciOrder(m);
    }
    String setting = "--rail-map " + railMap;
    Optional<Map<String, Integer>> mapped = read(setting).forNode(nodeLabels.get());
    if (mapped.isEmpty()) {
      notes.add(
          "node "
              + m.nodeName()
              + ": no entry of "
              + setting
              + " selects its labels; rails by PCI order");
      return Rails.byPciOrder(m);
    }
    return Rails.fromMapping(m, mapped.get(), setting);
  }

  private RailMap read(String setting) {
    try {
      return RailMap.parse(Files.readString(railMap));
    } catch (IOException | IllegalArgumentException e) {
      throw new DiscoveryException(setting + ": " + e.getMessage(), e);
    }
  }
}
