package dev.tandem.deviceplugin.preferred;

import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.AllocationResult;
import dev.tandem.topology.allocation.Allocator;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
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

  private static final AlignmentPolicy NEAREST =
      new AlignmentPolicy(Alignment.NONE, AlignmentMode.PREFERRED);

  private final Inventory inventory;
  private final LocalityIndex index;
  private final Allocator allocator;
  private final int slots;

  public HcaChooser(Inventory inventory) {
    this.inventory = inventory;
    // the kubelet decides which devices are healthy (it offers only those): count every device
    Machine m = inventory.machine();
    this.index =
        LocalityIndex.of(
            new Machine(
                m.nodeName(),
                m.source(),
                m.pcie(),
                m.devices().stream().map(d -> d.withHealthy(true)).toList()));
    this.allocator = new Allocator(index);
    this.slots = inventory.config().slotsPerHca();
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
    take(hcasNear(nearGpus, offered, out, size), offered, out, size);
    take(hcas, offered, out, size);
    if (out.size() < size) {
      take(allocatorBest(offered, out, size), offered, out, size);
    }
    for (String id : available) {
      if (out.size() >= size) {
        break;
      }
      out.add(id);
    }
    return List.copyOf(out);
  }

  /** Adds, for each HCA id in order, one offered device of that HCA not taken yet. */
  private void take(List<String> hcas, Set<String> offered, Set<String> out, int size) {
    for (String hca : hcas) {
      if (out.size() >= size) {
        return;
      }
      for (String id : inventory.idsFor(hca)) {
        if (offered.contains(id) && out.add(id)) {
          break;
        }
      }
    }
  }

  private List<String> hcasNear(
      List<String> gpus, Set<String> offered, Set<String> taken, int size) {
    Set<String> held = new LinkedHashSet<>();
    for (String g : gpus) {
      inventory
          .machine()
          .device(g)
          .filter(d -> d.kind() == DeviceKind.GPU)
          .ifPresent(d -> held.add(d.id()));
    }
    if (held.isEmpty()) {
      return List.of();
    }
    int need = size - taken.size();
    return need <= 0
        ? List.of()
        : hcasOf(
            allocator.allocate(
                new AllocationRequest(held.size(), need, NEAREST),
                availability(offered, taken, held)));
  }

  private List<String> allocatorBest(Set<String> offered, Set<String> taken, int size) {
    return hcasOf(
        allocator.allocate(
            new AllocationRequest(0, size - taken.size(), NEAREST),
            availability(offered, taken, Set.of())));
  }

  private static List<String> hcasOf(AllocationResult r) {
    return r instanceof Allocation a ? a.hcaIds() : List.of();
  }

  /** Free: the given GPUs, and per HCA the offered devices of it not taken yet. */
  private Availability availability(Set<String> offered, Set<String> taken, Set<String> gpus) {
    Map<String, Integer> units = new HashMap<>();
    for (String id : offered) {
      if (!taken.contains(id)) {
        inventory
            .device(id)
            .map(PluginDevice::hca)
            .ifPresent(h -> units.merge(h.id(), 1, Integer::sum));
      }
    }
    Availability all = Availability.allFree(index, slots);
    List<String> away = new ArrayList<>();
    for (int i = 0; i < index.devices().size(); i++) {
      Device d = index.devices().get(i);
      int keep =
          d.kind() == DeviceKind.GPU
              ? (gpus.contains(d.id()) ? 1 : 0)
              : units.getOrDefault(d.id(), 0);
      for (int u = keep; u < all.free(i); u++) {
        away.add(d.id());
      }
    }
    return all.without(away);
  }
}
