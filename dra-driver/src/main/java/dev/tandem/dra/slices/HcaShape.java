package dev.tandem.dra.slices;

import java.util.Locale;

/** How the driver publishes a node's HCAs (docs/dra.md, "Modes"). */
public enum HcaShape {
  /** One device per HCA that is not an SR-IOV VF. */
  HCA,
  /**
   * One device per SR-IOV VF, with its PF's PCI address; a PF with VFs is not a device itself (its
   * VFs are), an HCA without VFs is one whole, as in {@link #HCA}: a claim tells them apart by the
   * {@code tandem.dev/pf} attribute only VFs have.
   */
  SRIOV,
  /**
   * One device per HCA that is not a VF, allocatable to many claims at once: it has a consumable
   * capacity of shares, each claim taking one by default (KEP-5075).
   */
  SHARED;

  /** The name the {@code --mode} flag takes. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
