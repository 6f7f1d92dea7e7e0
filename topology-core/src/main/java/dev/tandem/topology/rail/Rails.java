package dev.tandem.topology.rail;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which fabric rail each HCA of a node is cabled to (docs/rails.md): on a rail-optimized fabric HCA
 * k of every node goes to leaf switch k, and rank peers talk over one leaf only when both use the
 * same rail. Two rules, and the caller chooses: an operator's mapping for the node ({@link
 * #fromMapping}), else the HCA's ordinal among the node's GPU-attached HCAs in PCI order ({@link
 * #byPciOrder}). A VF is on its PF's rail unless the mapping names it. Pure: bad mappings become
 * notes naming the node, the HCA and the setting, never exceptions.
 */
public final class Rails {

  /** Rails came from the operator's mapping. */
  public static final String MAPPING = "mapping";

  /** Rails came from the PCI order of the GPU-attached HCAs. */
  public static final String PCI_ORDER = "pci-order";

  private static final Comparator<Device> PCI_ORDER_OF =
      Comparator.comparing(
              Device::address, Comparator.nullsLast(Comparator.<PciAddress>naturalOrder()))
          .thenComparing(Device::id);

  /**
   * The machine with its HCAs' rails set.
   *
   * @param machine the machine, every HCA's {@link HcaInfo#rail()} set or cleared
   * @param source {@link #MAPPING} or {@link #PCI_ORDER}
   * @param notes what was wrong with the mapping, each naming the node, the HCA and the setting
   */
  public record Assigned(Machine machine, String source, List<String> notes) {
    public Assigned {
      notes = List.copyOf(notes);
    }
  }

  private Rails() {}

  /**
   * Rails as the operator's mapping for this node says: each key (an ibverbs name, a netdev or a
   * PCI address) names an HCA and its rail; an HCA the mapping does not name has no rail (a storage
   * HCA), a VF it does not name is on its PF's rail. A key that names no HCA of the node is
   * ignored, and an HCA named with two rails, or two HCAs on one rail, get none; each is a note.
   *
   * @param rails rail by HCA key, as selected for this node
   * @param setting the setting the mapping came from, named in the notes (e.g. {@code --rail-map
   *     /etc/tandem/rails.json})
   */
  public static Assigned fromMapping(Machine machine, Map<String, Integer> rails, String setting) {
    String node = machine.nodeName();
    List<String> notes = new ArrayList<>();
    Map<String, Integer> byHca = new HashMap<>();
    List<String> conflicting = new ArrayList<>();
    new TreeMap<>(rails)
        .forEach(
            (key, rail) -> {
              List<Device> named = machine.hcas().stream().filter(d -> names(d, key)).toList();
              if (named.isEmpty()) {
                notes.add(
                    String.format(
                        "node %s: %s maps HCA '%s' to rail %d, but the node has no HCA of that"
                            + " ibverbs name, netdev or PCI address; ignored",
                        node, setting, key, rail));
              }
              for (Device d : named) {
                Integer before = byHca.putIfAbsent(d.id(), rail);
                if (before != null && !before.equals(rail)) {
                  conflicting.add(d.id());
                  notes.add(
                      String.format(
                          "node %s: %s puts HCA %s on rails %d and %d (key '%s'); it has no rail",
                          node, setting, d.id(), before, rail, key));
                }
              }
            });
    conflicting.forEach(byHca::remove);
    notes.addAll(shared(machine, byHca, setting));
    return new Assigned(withRails(machine, byHca), MAPPING, notes);
  }

  /**
   * Rails by PCI order: the HCAs that are not VFs and have a GPU at {@code PXB} or closer (under
   * one of the GPUs' switches), sorted by PCI address, are rails 0, 1, 2…; VFs are on their PF's
   * rail; every other HCA (storage, a bond on its own root port) has none. The rule for
   * rail-optimized servers of one model, whose HCAs are cabled in PCI order.
   */
  public static Assigned byPciOrder(Machine machine) {
    LocalityIndex index = LocalityIndex.of(machine);
    List<Device> attached =
        machine.hcas().stream()
            .filter(h -> !h.hca().virtualFunction())
            .filter(
                h ->
                    machine.gpus().stream()
                        .anyMatch(g -> index.locality(h.id(), g.id()).isWithin(Locality.PXB)))
            .sorted(PCI_ORDER_OF)
            .toList();
    Map<String, Integer> byHca = new HashMap<>();
    for (int i = 0; i < attached.size(); i++) {
      byHca.put(attached.get(i).id(), i);
    }
    return new Assigned(withRails(machine, byHca), PCI_ORDER, List.of());
  }

  /** Whether {@code key} is the HCA's ibverbs name, one of its netdevs or its PCI address. */
  static boolean names(Device hca, String key) {
    return key.equals(hca.hca().ibDevice())
        || hca.hca().netdevs().contains(key)
        || (hca.address() != null && address(key).filter(hca.address()::equals).isPresent());
  }

  private static Optional<PciAddress> address(String key) {
    try {
      return Optional.of(PciAddress.parse(key));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Notes for, and removes, the rails that more than one HCA (VFs aside) is mapped to. */
  private static List<String> shared(Machine machine, Map<String, Integer> byHca, String setting) {
    Map<Integer, List<String>> byRail = new TreeMap<>();
    for (Device d : machine.hcas()) {
      Integer rail = byHca.get(d.id());
      if (rail != null && !d.hca().virtualFunction()) {
        byRail.computeIfAbsent(rail, r -> new ArrayList<>()).add(d.id());
      }
    }
    List<String> notes = new ArrayList<>();
    byRail.forEach(
        (rail, hcas) -> {
          if (hcas.size() > 1) {
            hcas.forEach(byHca::remove);
            notes.add(
                String.format(
                    "node %s: %s puts HCAs %s on one rail %d; none of them has a rail",
                    machine.nodeName(), setting, String.join(", ", hcas), rail));
          }
        });
    return notes;
  }

  /** The machine with these rails, a VF without one of its own on its PF's. */
  private static Machine withRails(Machine machine, Map<String, Integer> byHca) {
    Map<PciAddress, Integer> byAddress = new LinkedHashMap<>();
    for (Device d : machine.hcas()) {
      if (d.address() != null && byHca.containsKey(d.id())) {
        byAddress.put(d.address(), byHca.get(d.id()));
      }
    }
    List<Device> devices = new ArrayList<>();
    for (Device d : machine.devices()) {
      if (d.hca() == null) {
        devices.add(d);
        continue;
      }
      Integer rail = byHca.get(d.id());
      if (rail == null && d.hca().virtualFunction() && d.hca().physicalFunction() != null) {
        rail = byAddress.get(d.hca().physicalFunction());
      }
      devices.add(d.toBuilder().hca(d.hca().withRail(rail)).build());
    }
    return new Machine(machine.nodeName(), machine.source(), machine.pcie(), devices);
  }
}
