package dev.tandem.api.dra;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.PcieNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Tandem's locality groups as device attributes: for each grouped level of topology-core ({@code
 * PIX}, {@code PXB}, {@code PHB}, {@code NODE}), the attribute whose values are equal for two
 * devices exactly when topology-core puts them in one group at that level. The driver publishes
 * these, and the placement simulator gives them to its claim matcher, so a generated claim
 * (docs/dra.md, "Claims for Tandem's rules") means the allocator's rule on every node, SNC and NPS
 * hosts and VMs included. A device that is a group of its own at a level (no bridge, no host bridge
 * or no CPU domain above it) has no attribute for that level and so aligns with nothing there.
 */
public final class LocalityAttributes {

  /** The longest string value the API server takes in a device attribute. */
  static final int MAX_VALUE_LENGTH = 64;

  private static final Map<String, Locality> LEVELS =
      Map.of(
          DraAttributes.PIX_GROUP, Locality.PIX,
          DraAttributes.PCIE_SWITCH, Locality.PXB,
          DraAttributes.ROOT_COMPLEX, Locality.PHB,
          DraAttributes.CPU_DOMAIN, Locality.NODE);

  private LocalityAttributes() {}

  /** The group attributes of {@code device}, by name, in the tree whose nodes are {@code nodes}. */
  public static SortedMap<String, String> of(Device device, Map<String, PcieNode> nodes) {
    SortedMap<String, String> out = new TreeMap<>();
    LEVELS.forEach(
        (name, level) ->
            LocalityIndex.groupNode(level, device, nodes).ifPresent(n -> out.put(name, value(n))));
    return out;
  }

  /**
   * A group's value: the PCI address of the bridge that names it, else the tree node's id (a host
   * bridge {@code hostbridge:0000:40}, a CPU domain {@code numa:0-1}). An id longer than the API
   * allows keeps its first characters and ends in a digest of the whole, so that distinct groups
   * keep distinct values.
   */
  static String value(PcieNode node) {
    String id = node.address() != null ? node.address().toString() : node.id();
    if (id.length() <= MAX_VALUE_LENGTH) {
      return id;
    }
    String digest = HexFormat.of().formatHex(sha256(id), 0, 8);
    return id.substring(0, MAX_VALUE_LENGTH - digest.length() - 1) + "~" + digest;
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
