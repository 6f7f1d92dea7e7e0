package dev.tandem.dra.slices;

import java.util.ArrayList;
import java.util.List;

/**
 * One node's pool as the driver publishes it: one pool per node, named after the node, its devices
 * split into as few ResourceSlices as the API allows (at most 128 devices in a slice, 64 when any
 * device of the pool carries a taint).
 *
 * @param driver the driver name
 * @param nodeName the node, also the pool's name
 * @param devices in the node's canonical order (GPUs by PCI address, then HCAs by name)
 */
public record NodePool(String driver, String nodeName, List<PublishedDevice> devices) {

  public static final int MAX_DEVICES_PER_SLICE = 128;
  public static final int MAX_DEVICES_PER_SLICE_WITH_TAINTS = 64;

  /** The longest object name the API accepts (a DNS subdomain). */
  public static final int MAX_SLICE_NAME_LENGTH = 253;

  public NodePool {
    devices = List.copyOf(devices);
    String longest = sliceName(nodeName, driver, Math.max(0, slices(devices).size() - 1));
    if (longest.length() > MAX_SLICE_NAME_LENGTH) {
      throw new InvalidPoolException(
          "node "
              + nodeName
              + ": the ResourceSlice name "
              + longest
              + " would be longer than "
              + MAX_SLICE_NAME_LENGTH
              + " characters; use a shorter driver name");
    }
  }

  /** The pool's name: the node's. */
  public String poolName() {
    return nodeName;
  }

  /** The devices of each slice, in order; one empty slice when the node has no device. */
  public List<List<PublishedDevice>> slices() {
    return slices(devices);
  }

  /** The name of slice {@code index}: {@code <node>-<driver>-<index>}, the same on every start. */
  public String sliceName(int index) {
    return sliceName(nodeName, driver, index);
  }

  private static String sliceName(String node, String driver, int index) {
    return node + "-" + driver + "-" + index;
  }

  private static List<List<PublishedDevice>> slices(List<PublishedDevice> devices) {
    boolean tainted = devices.stream().anyMatch(d -> !d.taints().isEmpty());
    int size = tainted ? MAX_DEVICES_PER_SLICE_WITH_TAINTS : MAX_DEVICES_PER_SLICE;
    List<List<PublishedDevice>> out = new ArrayList<>();
    for (int from = 0; from < devices.size(); from += size) {
      out.add(devices.subList(from, Math.min(devices.size(), from + size)));
    }
    if (out.isEmpty()) {
      out.add(List.of());
    }
    return out;
  }
}
