package dev.tandem.api.claims;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node's devices as {@link ClaimMatcher} tells them apart: in the node's order, each device's
 * class and, for each attribute it has, which value of that attribute it is (the first value met on
 * the node is 0, the next new one 1, ...), not the value itself. The matcher reads a device's
 * class, whether it has an attribute and whether two devices' values of one attribute are equal,
 * nothing else; so two nodes with one signature are the same to it, device for device (a value
 * renamed consistently, a GPU's UUID or a PCI address that differs from node to node, changes
 * nothing), and every claim gets the same answer on both. Nodes of one hardware model share a
 * signature; names are left out (they only label a match's result).
 *
 * <p>Equal signatures are sufficient, not necessary: the same devices listed in another order make
 * another signature, which costs only a match more. Compute it once per node when its devices
 * change; {@link #equals} compares the whole list (identical instances at once).
 */
public final class DeviceSignature {

  /** Per device: its class, then attribute name and value number, by name. */
  private final List<List<Object>> devices;

  private final int hash;

  private DeviceSignature(List<List<Object>> devices) {
    this.devices = devices;
    this.hash = devices.hashCode();
  }

  /** The signature of a node's devices, in the node's order. */
  public static DeviceSignature of(List<DraDevice> devices) {
    Map<String, Map<String, Integer>> numbers = new HashMap<>();
    List<List<Object>> out = new ArrayList<>(devices.size());
    for (DraDevice d : devices) {
      List<Object> key = new ArrayList<>(1 + 2 * d.attributes().size());
      key.add(d.deviceClass());
      new TreeMap<>(d.attributes())
          .forEach(
              (name, value) -> {
                Map<String, Integer> seen = numbers.computeIfAbsent(name, n -> new HashMap<>());
                key.add(name);
                key.add(seen.computeIfAbsent(value, v -> seen.size()));
              });
      out.add(List.copyOf(key));
    }
    return new DeviceSignature(List.copyOf(out));
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof DeviceSignature s && hash == s.hash && devices.equals(s.devices));
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "DeviceSignature" + devices;
  }
}
