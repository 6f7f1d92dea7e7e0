package dev.tandem.dra.slices;

import dev.tandem.api.DnsNames;
import dev.tandem.api.dra.AttributeValue;
import dev.tandem.api.dra.DraAttributes;
import dev.tandem.topology.model.Device;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One device of the node's pool as a ResourceSlice publishes it, checked against the API's limits
 * for a device (a DNS label name, at most 32 attributes and capacities, qualified attribute and
 * capacity names, string values of at most 64 characters, at most 16 taints).
 *
 * @param name the DRA device name, unique in the pool
 * @param device the device of the node's tree it stands for
 * @param attributes qualified name to value, sorted by name
 * @param taints empty for a healthy device
 * @param capacity qualified name to consumable capacity, sorted by name; only on a device with
 *     {@code allowMultipleAllocations} (a request policy needs it)
 * @param allowMultipleAllocations whether many claims may be given the device at once (KEP-5075)
 */
public record PublishedDevice(
    String name,
    Device device,
    SortedMap<String, AttributeValue> attributes,
    List<Taint> taints,
    SortedMap<String, ConsumableCapacity> capacity,
    boolean allowMultipleAllocations) {

  /** The most attributes and capacities a device may have together. */
  public static final int MAX_ATTRIBUTES = 32;

  /** The most taints a device may have. */
  public static final int MAX_TAINTS = 16;

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public PublishedDevice {
    if (!DNS_LABEL.matcher(name).matches()) {
      throw invalid(name, device, "its name is not a DNS label (RFC 1123, at most 63 characters)");
    }
    attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    taints = List.copyOf(taints);
    capacity = Collections.unmodifiableSortedMap(new TreeMap<>(capacity));
    if (attributes.size() + capacity.size() > MAX_ATTRIBUTES) {
      throw invalid(
          name,
          device,
          "it has "
              + attributes.size()
              + " attributes and "
              + capacity.size()
              + " capacities, more than the "
              + MAX_ATTRIBUTES
              + " a device may have together");
    }
    if (!capacity.isEmpty() && !allowMultipleAllocations) {
      throw invalid(
          name, device, "its capacities have a request policy, which needs multiple allocations");
    }
    capacity.keySet().forEach(c -> checkName(name, device, c));
    for (Map.Entry<String, AttributeValue> a : attributes.entrySet()) {
      checkName(name, device, a.getKey());
      String text = a.getValue().string() != null ? a.getValue().string() : a.getValue().version();
      if (text != null && text.length() > AttributeValue.MAX_VALUE_LENGTH) {
        throw invalid(
            name,
            device,
            "its attribute "
                + a.getKey()
                + " is "
                + text.length()
                + " characters long ("
                + text
                + "), more than the "
                + AttributeValue.MAX_VALUE_LENGTH
                + " the API accepts");
      }
    }
    if (taints.size() > MAX_TAINTS) {
      throw invalid(name, device, "it has more than " + MAX_TAINTS + " taints");
    }
  }

  /** A device one claim at a time is given, without capacities. */
  public PublishedDevice(
      String name,
      Device device,
      SortedMap<String, AttributeValue> attributes,
      List<Taint> taints) {
    this(name, device, attributes, taints, new TreeMap<>(), false);
  }

  private static void checkName(String device, Device d, String qualified) {
    int slash = qualified.indexOf('/');
    String domain = slash < 0 ? "" : qualified.substring(0, slash);
    String id = qualified.substring(slash + 1);
    boolean domainOk =
        slash < 0
            || (domain.length() <= DraAttributes.MAX_DOMAIN_LENGTH && DnsNames.isSubdomain(domain));
    if (!domainOk
        || id.length() > DraAttributes.MAX_ID_LENGTH
        || !C_IDENTIFIER.matcher(id).matches()) {
      throw invalid(
          device,
          d,
          "its attribute or capacity name "
              + qualified
              + " is not <DNS subdomain of at most 63>/<C identifier of at most 32>");
    }
  }

  private static InvalidPoolException invalid(String name, Device d, String why) {
    return new InvalidPoolException(
        "device " + name + " (" + d.id() + ") cannot be published: " + why);
  }
}
