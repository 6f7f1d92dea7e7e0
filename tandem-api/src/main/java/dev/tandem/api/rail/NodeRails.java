package dev.tandem.api.rail;

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
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one application of the rail rule for every node daemon (docs/rails.md): the operator's
 * mapping ({@code --rail-map}, read again at each call, the entry chosen by the Node's labels),
 * else rails by PCI order. The agent, the device plugin and the DRA driver each hand it to
 * topology-discovery's {@code TopologySources.create(options, rails)}, which applies it to every
 * machine it discovers. A mapping that names what the node lacks is a note; a file that cannot be
 * read or is not a mapping is an {@link IllegalArgumentException} naming {@code --rail-map} and the
 * file, which fails that discovery.
 */
public final class NodeRails implements Function<Machine, Rails.Assigned> {

  private final Path railMap;
  private final Supplier<Map<String, String>> nodeLabels;

  /**
   * @param railMap the operator's mapping, or null for rails by PCI order
   * @param nodeLabels the labels of the node's Node object (blocking; read only when there is a
   *     mapping); a daemon that cannot read its Node gives the labels it knows, none at worst, so
   *     that only entries without a selector select it
   */
  public NodeRails(Path railMap, Supplier<Map<String, String>> nodeLabels) {
    this.railMap = railMap;
    this.nodeLabels = Objects.requireNonNull(nodeLabels, "nodeLabels");
  }

  /** Rails by PCI order, whatever the node's labels. */
  public static NodeRails byPciOrder() {
    return new NodeRails(null, Map::of);
  }

  /** The setting the rails come from, as notes and errors name it. */
  public String setting() {
    return railMap == null ? "rails by PCI order" : "--rail-map " + railMap;
  }

  /**
   * The machine with its HCAs' rails, and the notes on the mapping (each naming the node).
   *
   * @throws IllegalArgumentException naming {@code --rail-map}, the file and, for a bad mapping,
   *     the entry and the field
   */
  @Override
  public Rails.Assigned apply(Machine machine) {
    if (railMap == null) {
      return Rails.byPciOrder(machine);
    }
    Optional<Map<String, Integer>> mapped = read().forNode(nodeLabels.get());
    if (mapped.isPresent()) {
      return Rails.fromMapping(machine, mapped.get(), setting());
    }
    Rails.Assigned byPci = Rails.byPciOrder(machine);
    List<String> notes = new ArrayList<>(byPci.notes());
    notes.add(
        "node "
            + machine.nodeName()
            + ": no entry of "
            + setting()
            + " selects its labels; rails by PCI order");
    return new Rails.Assigned(byPci.machine(), byPci.source(), notes);
  }

  private RailMap read() {
    String json;
    try {
      json = Files.readString(railMap);
    } catch (IOException e) {
      throw new IllegalArgumentException(setting() + ": cannot be read: " + e, e);
    }
    try {
      return RailMap.parse(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(setting() + ": " + e.getMessage(), e);
    }
  }
}
