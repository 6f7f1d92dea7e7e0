package dev.tandem.topology.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How far apart two devices are, named as {@code nvidia-smi topo -m} names it, best first.
 *
 * <p>The order of the constants is the order of distance: {@link #compareTo} says which is closer.
 */
public enum Locality {
  /** The device itself. */
  X("Self"),
  /** Under one PCIe switch (at most one bridge between each device and the meeting point). */
  PIX("Connection traversing at most a single PCIe bridge"),
  /** Under one root port, through several bridges, never through the host bridge. */
  PXB("Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"),
  /** Through one PCIe host bridge (one root complex). */
  PHB("Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"),
  /** Across host bridges within one NUMA node. */
  NODE(
      "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"),
  /** Across NUMA nodes (the socket interconnect, e.g. QPI/UPI). */
  SYS(
      "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)");

  private static final Locality[] VALUES = values();
  private final String meaning;

  Locality(String meaning) {
    this.meaning = meaning;
  }

  public String meaning() {
    return meaning;
  }

  public boolean isWithin(Locality limit) {
    return compareTo(limit) <= 0;
  }

  public static Locality worse(Locality a, Locality b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  /** Parses a name such as {@code PIX} (case-insensitive), with an error that lists the names. */
  public static Locality parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(
          "unknown locality '"
              + text
              + "'; allowed: "
              + Arrays.stream(VALUES).map(Enum::name).collect(Collectors.joining(", ")));
    }
  }
}
