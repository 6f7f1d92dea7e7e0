package dev.tandem.api.container;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The order a container's devices are listed in, so that every rank of a gang lists its devices the
 * same way (docs/rails.md, "NCCL and UCX in rail order"): HCAs by ascending rail, those without one
 * after, in the order given; GPUs by the lowest rail among the HCAs under their PCIe switch (at
 * {@code PXB} or closer), equal rails by PCI address, GPUs near no railed HCA after, in the order
 * given.
 */
public final class RailOrder {

  private static final Comparator<Integer> RAIL_THEN_NONE =
      Comparator.nullsLast(Comparator.<Integer>naturalOrder());

  private RailOrder() {}

  /** The HCAs (or VFs) by ascending rail; those on no rail after, in their order here. */
  public static List<Device> hcas(List<Device> hcas) {
    return hcas.stream().sorted(Comparator.comparing(RailOrder::rail, RAIL_THEN_NONE)).toList();
  }

  /**
   * The rail each GPU of the machine follows: the lowest rail among the HCAs at {@code PXB} or
   * closer to it (under its switch), by GPU id; a GPU near no railed HCA is absent.
   */
  public static Map<String, Integer> gpuRails(Machine machine) {
    List<Device> railed = machine.hcas().stream().filter(h -> rail(h) != null).toList();
    Map<String, Integer> out = new HashMap<>();
    if (railed.isEmpty()) {
      return out;
    }
    LocalityIndex index = LocalityIndex.of(machine);
    for (Device gpu : machine.gpus()) {
      railed.stream()
          .filter(h -> index.locality(gpu.id(), h.id()).isWithin(Locality.PXB))
          .map(RailOrder::rail)
          .min(Comparator.naturalOrder())
          .ifPresent(r -> out.put(gpu.id(), r));
    }
    return out;
  }

  /**
   * The order of a machine's GPU ids: by the rail their switch's HCAs are on ({@link #gpuRails}),
   * equal rails by PCI address; GPUs near no railed HCA after, among themselves as they came (a
   * stable sort keeps them). Ids the machine does not know count as near no railed HCA.
   */
  public static Comparator<String> gpuIds(Machine machine) {
    Map<String, Integer> rails = gpuRails(machine);
    Map<String, PciAddress> address = new HashMap<>();
    machine.gpus().stream()
        .filter(g -> rails.containsKey(g.id()) && g.address() != null)
        .forEach(g -> address.put(g.id(), g.address()));
    return Comparator.comparing((String id) -> rails.get(id), RAIL_THEN_NONE)
        .thenComparing(address::get, Comparator.nullsLast(Comparator.<PciAddress>naturalOrder()));
  }

  private static Integer rail(Device hca) {
    return Optional.ofNullable(hca.hca()).map(h -> h.rail()).orElse(null);
  }
}
