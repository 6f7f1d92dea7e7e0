package dev.tandem.api.claims;

import dev.tandem.api.dra.AttributeValue;
import dev.tandem.api.dra.DeviceAttributes;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every device Tandem's DRA driver can publish for a node, all free, as {@link ClaimMatcher} reads
 * them: each GPU (joint mode) and each HCA, SR-IOV VFs and their PFs alike, in the node's order,
 * with the attributes the driver computes ({@link DeviceAttributes}). It is the union of what every
 * driver mode publishes, tainted devices included: a claim no node can be given from these devices
 * cannot be given from what the driver publishes in any mode, with any device healthy. (The {@code
 * shared} mode gives one HCA to several requests of a claim, which no list of devices models: the
 * caller leaves HCA claims unjudged there.) Pure.
 */
public final class NodeDevices {

  private NodeDevices() {}

  /** The node's devices in its canonical order (GPUs, then HCAs). */
  public static List<DraDevice> of(Machine machine) {
    DeviceAttributes attributes = new DeviceAttributes(machine);
    List<DraDevice> out = new ArrayList<>();
    for (Device d : machine.devices()) {
      out.add(
          new DraDevice(name(d), ClaimGenerator.deviceClass(d.kind()), values(attributes.of(d))));
    }
    return out;
  }

  /** The DRA name where the device has one, else its id (names only label a match's result). */
  private static String name(Device d) {
    try {
      return DeviceIds.draName(d);
    } catch (IllegalArgumentException e) {
      return d.id();
    }
  }

  private static Map<String, String> values(Map<String, AttributeValue> attributes) {
    Map<String, String> out = new HashMap<>();
    attributes.forEach((name, value) -> out.put(name, text(value)));
    return out;
  }

  /** One text per value; {@code matchAttribute} compares values of one attribute, of one type. */
  private static String text(AttributeValue v) {
    if (v.string() != null) {
      return v.string();
    }
    if (v.version() != null) {
      return v.version();
    }
    return String.valueOf(v.integer() != null ? v.integer() : v.bool());
  }
}
