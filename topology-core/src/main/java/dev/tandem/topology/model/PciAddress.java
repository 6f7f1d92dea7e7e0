package dev.tandem.topology.model;

import java.util.Locale;

/**
 * A PCI function address, {@code dddd:bb:dd.f}, ordered as {@code lspci} and nvidia-smi order
 * devices.
 */
public record PciAddress(int domain, int bus, int device, int function)
    implements Comparable<PciAddress> {

  public PciAddress {
    if (domain < 0
        || domain > 0xffff
        || bus < 0
        || bus > 0xff
        || device < 0
        || device > 0x1f
        || function < 0
        || function > 7) {
      throw new IllegalArgumentException(
          "PCI address out of range: " + domain + ":" + bus + ":" + device + "." + function);
    }
  }

  /** Parses {@code 0000:4e:00.0} or the short form {@code 4e:00.0} (domain 0). */
  public static PciAddress parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("PCI address is missing");
    }
    String s = text.trim();
    try {
      String[] colon = s.split(":");
      if (colon.length < 2 || colon.length > 3) {
        throw new NumberFormatException();
      }
      int domain = colon.length == 3 ? Integer.parseInt(colon[0], 16) : 0;
      int bus = Integer.parseInt(colon[colon.length - 2], 16);
      String[] devFn = colon[colon.length - 1].split("\\.");
      if (devFn.length != 2) {
        throw new NumberFormatException();
      }
      return new PciAddress(
          domain, bus, Integer.parseInt(devFn[0], 16), Integer.parseInt(devFn[1], 16));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "not a PCI address: '" + text + "' (expected dddd:bb:dd.f, for example 0000:4e:00.0)");
    }
  }

  /** True when both addresses are functions of one physical device (same domain, bus and slot). */
  public boolean sameSlot(PciAddress other) {
    return domain == other.domain && bus == other.bus && device == other.device;
  }

  @Override
  public int compareTo(PciAddress o) {
    if (domain != o.domain) {
      return Integer.compare(domain, o.domain);
    }
    if (bus != o.bus) {
      return Integer.compare(bus, o.bus);
    }
    if (device != o.device) {
      return Integer.compare(device, o.device);
    }
    return Integer.compare(function, o.function);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", domain, bus, device, function);
  }
}
