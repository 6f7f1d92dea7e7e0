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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The topology-core {@link Allocator} over the plugin's inventory, as both preferred-allocation
 * policies use it: the kubelet offers only healthy devices, so every device of the machine counts
 * as healthy and the offered ids decide what is free. Maps plugin device ids (HCA, VF, shared slot)
 * to the allocator's HCA units and back. Follows the inventory: after a rescan changed the devices
 * (SR-IOV VFs re-created at other PCI addresses), the next call places the new devices in the new
 * tree (a VF under its PF's switch), so locality holds for them as for the devices found at start.
 * Pure and thread-safe.
 */
public final class InventoryAllocator {

  private static final AlignmentPolicy NEAREST =
      new AlignmentPolicy(Alignment.NONE, AlignmentMode.PREFERRED);

  private final Inventory inventory;
  private volatile Located located;

  /** The allocator over one discovery of the node (the inventory's machine it was built from). */
  private record Located(Machine machine, LocalityIndex index, Allocator allocator) {

    static Located of(Machine m) {
      LocalityIndex index =
          LocalityIndex.of(
              new Machine(
                  m.nodeName(),
                  m.source(),
                  m.pcie(),
                  m.devices().stream().map(d -> d.withHealthy(true)).toList()));
      return new Located(m, index, new Allocator(index));
    }
  }

  public InventoryAllocator(Inventory inventory) {
    this.inventory = inventory;
    this.located = Located.of(inventory.machine());
  }

  public Inventory inventory() {
    return inventory;
  }

  /** The locality index of the inventory's current discovery. */
  public LocalityIndex index() {
    return located().index();
  }

  /** The allocator of the inventory's current discovery, rebuilt once after a rescan took one. */
  private Located located() {
    Machine now = inventory.machine();
    Located l = located;
    if (l.machine() != now) {
      l = Located.of(now);
      located = l;
    }
    return l;
  }

  /**
   * The allocator's nearest {@code gpus} GPUs and {@code hcas} HCA units among the free ones (GPU
   * id → 1, allocator HCA id → units); empty when too few are free.
   */
  public Optional<Allocation> best(
      int gpus, int hcas, Map<String, Integer> gpuFree, Map<String, Integer> hcaFree) {
    Located l = located();
    AllocationResult r =
        l.allocator()
            .allocate(
                new AllocationRequest(gpus, hcas, NEAREST),
                availability(l.index(), gpuFree, hcaFree));
    return r instanceof Allocation a ? Optional.of(a) : Optional.empty();
  }

  /** The allocator HCA units behind the offered device ids not taken yet, with their counts. */
  public Map<String, Integer> freeUnits(Set<String> offered, Set<String> taken) {
    Map<String, Integer> units = new HashMap<>();
    for (String id : offered) {
      if (!taken.contains(id)) {
        inventory
            .device(id)
            .map(PluginDevice::hca)
            .ifPresent(h -> units.merge(h.id(), 1, Integer::sum));
      }
    }
    return units;
  }

  /**
   * For each HCA unit in order (topology id or ibverbs name), adds to {@code out} one offered
   * device of that unit not in it yet, until {@code out} holds {@code size} ids.
   */
  public void takeOnePerUnit(List<String> units, Set<String> offered, Set<String> out, int size) {
    for (String unit : units) {
      if (out.size() >= size) {
        return;
      }
      for (String id : inventory.idsFor(unit)) {
        if (offered.contains(id) && out.add(id)) {
          break;
        }
      }
    }
  }

  /** Whether the allocator knows this id. */
  public boolean knows(String id) {
    return knows(index(), id);
  }

  /** Whether {@code index} knows this id. */
  public static boolean knows(LocalityIndex index, String id) {
    try {
      index.indexOf(id);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private Availability availability(
      LocalityIndex index, Map<String, Integer> gpuFree, Map<String, Integer> hcaFree) {
    Availability all = Availability.allFree(index, inventory.config().slotsPerHca());
    List<String> away = new ArrayList<>();
    for (int i = 0; i < index.devices().size(); i++) {
      Device d = index.devices().get(i);
      int keep =
          d.kind() == DeviceKind.GPU
              ? gpuFree.getOrDefault(d.id(), 0)
              : hcaFree.getOrDefault(d.id(), 0);
      for (int u = keep; u < all.free(i); u++) {
        away.add(d.id());
      }
    }
    return all.without(away);
  }
}
