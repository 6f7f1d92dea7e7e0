package dev.tandem.deviceplugin.preferred;

import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.model.DeviceKind;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Chooses exactly {@code size} HCA device ids out of {@code available}, keeping {@code
 * mustInclude}: the HCAs nearest given GPUs (the topology-core allocator pairing those GPUs with
 * the available HCAs), then given HCAs (a plan's), then the allocator's best HCAs among the
 * available, then the kubelet's order. Pure and thread-safe.
 */
public final class HcaChooser {

  private final InventoryAllocator allocator;

  public HcaChooser(InventoryAllocator allocator) {
    this.allocator = allocator;
  }

  /**
   * The chosen ids; fewer than {@code size} only when fewer are available.
   *
   * @param nearGpus GPU ids whose nearest HCAs come first (may be empty)
   * @param hcas HCA ids (topology ids or ibverbs names) to take next (may be empty)
   */
  public List<String> choose(
      List<String> available,
      List<String> mustInclude,
      int size,
      List<String> nearGpus,
      List<String> hcas) {
    Set<String> out = new LinkedHashSet<>(mustInclude);
    Set<String> offered = new LinkedHashSet<>(available);
    allocator.takeOnePerUnit(hcasNear(nearGpus, offered, out, size), offered, out, size);
    allocator.takeOnePerUnit(hcas, offered, out, size);
    if (out.size() < size) {
      allocator.takeOnePerUnit(best(Map.of(), 0, offered, out, size), offered, out, size);
    }
    for (String id : available) {
      if (out.size() >= size) {
        break;
      }
      out.add(id);
    }
    return List.copyOf(out);
  }

  private List<String> hcasNear(
      List<String> gpus, Set<String> offered, Set<String> taken, int size) {
    Map<String, Integer> held = new HashMap<>();
    for (String g : gpus) {
      allocator
          .inventory()
          .machine()
          .device(g)
          .filter(d -> d.kind() == DeviceKind.GPU)
          .ifPresent(d -> held.put(d.id(), 1));
    }
    return held.isEmpty() ? List.of() : best(held, held.size(), offered, taken, size);
  }

  /** The allocator's HCA units for what is still missing, next to the held GPUs. */
  private List<String> best(
      Map<String, Integer> held, int gpus, Set<String> offered, Set<String> taken, int size) {
    int need = size - taken.size();
    return need <= 0
        ? List.of()
        : allocator
            .best(gpus, need, held, allocator.freeUnits(offered, taken))
            .map(Allocation::hcaIds)
            .orElse(List.of());
  }
}
