package dev.tandem.simulator.cluster;

import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code --cluster FILE[:COUNT]} argument: a topology file (hwloc XML or NCCL topology) or a
 * NodeTopology dump (JSON), repeated COUNT times (1 when omitted).
 *
 * @param file the file
 * @param count how many nodes of each topology in it
 */
public record ClusterSpec(Path file, int count) {

  /** The first element's name, past the XML declaration, comments and a DOCTYPE. */
  private static final Pattern ROOT_ELEMENT = Pattern.compile("<([A-Za-z][\\w.-]*)");

  /**
   * Parses {@code FILE[:COUNT]}.
   *
   * @throws IllegalArgumentException when COUNT is not a positive number
   */
  public static ClusterSpec parse(String text) {
    int colon = text.lastIndexOf(':');
    if (colon > 0 && text.substring(colon + 1).matches("\\d+")) {
      int count = Integer.parseInt(text.substring(colon + 1));
      if (count < 1) {
        throw new IllegalArgumentException("--cluster " + text + ": the count must be at least 1");
      }
      return new ClusterSpec(Path.of(text.substring(0, colon)), count);
    }
    if (colon > 0 && !Files.exists(Path.of(text))) {
      throw new IllegalArgumentException(
          "--cluster " + text + ": '" + text.substring(colon + 1) + "' is not a node count");
    }
    return new ClusterSpec(Path.of(text), 1);
  }

  /**
   * Builds a cluster from several specs, nodes in argument order. A topology whose HCAs carry no
   * rail (every topology file; a dump from an agent without rails) gets them by PCI order, as the
   * agent gives them without {@code --rail-map} (topology-core's {@code Rails.byPciOrder}).
   */
  public static Cluster load(List<ClusterSpec> specs) {
    List<SimNode> nodes = new ArrayList<>();
    for (ClusterSpec spec : specs) {
      for (Machine m : spec.machines().stream().map(ClusterSpec::railed).toList()) {
        Allocator allocator = new Allocator(LocalityIndex.of(m));
        for (int i = 0; i < spec.count; i++) {
          nodes.add(new SimNode(m.nodeName() + "-" + i, m.nodeName(), allocator));
        }
      }
    }
    return new Cluster(nodes);
  }

  private static Machine railed(Machine m) {
    boolean anyRail = m.hcas().stream().anyMatch(h -> h.hca().rail() != null);
    return anyRail ? m : Rails.byPciOrder(m).machine();
  }

  /** The topologies in the file, each named after the file (XML) or the object (JSON). */
  List<Machine> machines() {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ClusterFileException("cannot read cluster file " + file + ": " + e, e);
    }
    String head = text.stripLeading();
    if (head.startsWith("{") || head.startsWith("[")) {
      return NodeTopologyDump.read(text, file.toString());
    }
    if (!head.startsWith("<")) {
      throw new ClusterFileException(
          file + ":1: neither XML (hwloc, NCCL topology) nor JSON (NodeTopology objects)");
    }
    String name = file.getFileName().toString().replaceFirst("\\.xml$", "");
    Matcher root = ROOT_ELEMENT.matcher(head.replaceAll("(?s)<!--.*?-->", ""));
    boolean nccl = root.find() && root.group(1).equals("system");
    return List.of(TopologyFiles.read(file, name, nccl));
  }
}
