package dev.tandem.deviceplugin.preferred.joint;

import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.deviceplugin.preferred.HcaChooser;
import dev.tandem.deviceplugin.preferred.InventoryAllocator;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The device choices of joint mode, all through one topology-core {@link Allocator}: the best joint
 * set for (GPUs, HCAs) among free units, the GPUs nearest given HCAs, the HCAs nearest given GPUs
 * ({@link HcaChooser}, as in hint mode), and the mapping between the allocator's HCA ids and the
 * plugin's device ids (HCA, VF or shared slot). Pure and thread-safe.
 */
final class JointChooser {

  private final Inventory inventory;
  private final InventoryAllocator allocator;
  private final HcaChooser hcaChooser;

  JointChooser(Inventory inventory) {
    this.inventory = inventory;
    this.allocator = new InventoryAllocator(inventory);
    this.hcaChooser = new HcaChooser(allocator);
  }

  /**
   * The allocator's best (gpus, hcas) among the free units (GPU id → 1, HCA id → units); empty when
   * short.
   */
  Optional<Allocation> best(
      int gpus, int hcas, Map<String, Integer> gpuFree, Map<String, Integer> hcaFree) {
    return allocator.best(gpus, hcas, gpuFree, hcaFree);
  }

  /**
   * Exactly {@code size} GPUs of {@code offered} (fewer only if fewer offered): must, preferred,
   * nearest the HCAs, kubelet order.
   */
  List<String> gpus(
      List<String> offered,
      List<String> must,
      int size,
      List<String> preferred,
      List<String> nearHcas) {
    Set<String> out = new LinkedHashSet<>(must);
    Set<String> free = new LinkedHashSet<>(offered);
    for (String g : preferred) {
      if (out.size() < size && free.contains(g)) {
        out.add(g);
      }
    }
    if (out.size() < size && !nearHcas.isEmpty()) {
      out.addAll(
          nearest(
              free.stream().filter(g -> !out.contains(g) && allocator.knows(g)).toList(),
              g -> g,
              nearHcas,
              size - out.size()));
    }
    if (out.size() < size) {
      Map<String, Integer> gpuFree = new HashMap<>();
      free.stream()
          .filter(g -> !out.contains(g) && allocator.knows(g))
          .forEach(g -> gpuFree.put(g, 1));
      best(size - out.size(), 0, gpuFree, Map.of()).ifPresent(x -> out.addAll(x.gpuIds()));
    }
    for (String g : offered) {
      if (out.size() >= size) {
        break;
      }
      out.add(g);
    }
    return List.copyOf(out);
  }

  /**
   * Exactly {@code size} HCA device ids of {@code offered}: must, the preferred HCA units, nearest
   * the GPUs, allocator, kubelet order.
   */
  List<String> hcas(
      List<String> offered,
      List<String> must,
      int size,
      List<String> preferredUnits,
      List<String> nearGpus) {
    Set<String> out = new LinkedHashSet<>(must);
    Set<String> free = new LinkedHashSet<>(offered);
    allocator.takeOnePerUnit(preferredUnits, free, out, size);
    if (out.size() < size && !nearGpus.isEmpty()) {
      out.addAll(
          nearest(
              free.stream().filter(id -> !out.contains(id)).toList(),
              this::hcaUnit,
              nearGpus,
              size - out.size()));
    }
    if (out.size() >= size) {
      return List.copyOf(out);
    }
    return hcaChooser.choose(offered, List.copyOf(out), size, nearGpus, List.of());
  }

  /**
   * The {@code need} candidates nearest the given devices of the other kind: each of those devices
   * in turn takes the nearest candidate left (ties to the machine's canonical order), so every
   * device of the first side gets a near partner before any gets a second one.
   */
  List<String> nearest(
      List<String> candidates, Function<String, String> unitOf, List<String> partners, int need) {
    LocalityIndex index = allocator.index();
    List<String> pool =
        new ArrayList<>(
            candidates.stream()
                .filter(c -> InventoryAllocator.knows(index, unitOf.apply(c)))
                .sorted(Comparator.comparingInt((String c) -> index.indexOf(unitOf.apply(c))))
                .toList());
    List<String> near = partners.stream().filter(p -> InventoryAllocator.knows(index, p)).toList();
    List<String> out = new ArrayList<>();
    for (int i = 0; out.size() < need && !pool.isEmpty() && !near.isEmpty(); i++) {
      String partner = near.get(i % near.size());
      String pick =
          pool.stream()
              .min(Comparator.comparing((String c) -> index.locality(unitOf.apply(c), partner)))
              .orElseThrow();
      out.add(pick);
      pool.remove(pick);
    }
    return out;
  }

  /** Whether every preferred HCA unit maps to a distinct offered device id. */
  boolean hcasOffered(List<String> units, Collection<String> offered) {
    return hcas(List.copyOf(offered), List.of(), units.size(), units, List.of()).stream()
        .map(this::hcaUnit)
        .sorted()
        .toList()
        .equals(units.stream().map(this::canonicalHca).sorted().toList());
  }

  /** The allocator's HCA id behind a plugin device id (the id itself when unknown). */
  String hcaUnit(String pluginId) {
    return inventory.device(pluginId).map(PluginDevice::hca).map(Device::id).orElse(pluginId);
  }

  List<String> hcaUnits(Collection<String> pluginIds) {
    return pluginIds.stream().map(this::hcaUnit).toList();
  }

  /** A plan's HCA id (topology id or ibverbs name) as the allocator's id. */
  String canonicalHca(String hcaId) {
    return inventory.machine().hcas().stream()
        .filter(h -> h.id().equals(hcaId) || hcaId.equals(h.hca().ibDevice()))
        .map(Device::id)
        .findFirst()
        .orElse(hcaId);
  }
}
