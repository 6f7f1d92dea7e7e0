package dev.tandem.discovery;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import java.util.Optional;

/**
 * The note a node gets when the PCIe tree pairs no GPU with an HCA: every GPU–HCA pair crosses host
 * bridges ({@code NODE} or {@code SYS}), as on a Grace node whose GPUs sit in PCIe domains of their
 * own and whose NICs have no Data Direct function by them (GB200 with ConnectX-7, Data Direct
 * turned off, a VM that does not pass it through). Pods asking for both align by CPU NUMA node
 * there.
 */
public final class NumaOnlyPairing {

  private NumaOnlyPairing() {}

  /** The note, when {@code m} has GPUs and HCAs and no pair of them shares a host bridge. */
  public static Optional<String> note(Machine m, String source) {
    if (m.gpus().isEmpty() || m.hcas().isEmpty()) {
      return Optional.empty();
    }
    LocalityIndex index = LocalityIndex.of(m);
    for (Device g : m.gpus()) {
      for (Device h : m.hcas()) {
        if (index.locality(g.id(), h.id()).isWithin(Locality.PHB)) {
          return Optional.empty();
        }
      }
    }
    return Optional.of(
        source
            + ": no HCA shares a PCIe host bridge with a GPU and no Data Direct function places one"
            + " by a GPU: GPU+HCA pods on this node align by CPU NUMA node only (alignment policy"
            + " numa); the switch and host-bridge policies refuse them");
  }
}
