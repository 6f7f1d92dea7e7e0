package dev.tandem.topology.policy;

import dev.tandem.topology.model.Locality;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * How close a pod's GPUs and HCAs must be: the worst locality allowed between a GPU and its HCA.
 */
public enum Alignment {
  /** Under one PCIe switch tree: at worst {@code PXB}. */
  SWITCH("switch", Locality.PXB),
  /** Under one root complex: at worst {@code PHB}. */
  ROOT_COMPLEX("root-complex", Locality.PHB),
  /** Within one NUMA node: at worst {@code NODE}. */
  NUMA("numa", Locality.NODE),
  /** Anywhere on the node. */
  NONE("none", Locality.SYS);

  private final String value;
  private final Locality worstAllowed;

  Alignment(String value, Locality worstAllowed) {
    this.value = value;
    this.worstAllowed = worstAllowed;
  }

  /** The annotation value, e.g. {@code root-complex}. */
  public String value() {
    return value;
  }

  public Locality worstAllowed() {
    return worstAllowed;
  }

  public static Alignment parse(String text) {
    for (Alignment a : values()) {
      if (a.value.equals(text)) {
        return a;
      }
    }
    throw new InvalidPolicyException(AlignmentPolicy.ALIGNMENT_ANNOTATION, text, allowed());
  }

  static String allowed() {
    return Arrays.stream(values()).map(Alignment::value).collect(Collectors.joining(", "));
  }
}
