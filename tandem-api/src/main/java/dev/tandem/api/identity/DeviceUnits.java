package dev.tandem.api.identity;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.UnitEntry;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * How many devices the kubelet can hand out for each device of a node's tree: what the extender
 * counts as free units. Counted on the node from the kubelet's allocatable ids, read through {@link
 * DeviceIds}, and published as {@code status.units}. For each of the two resources it is either
 * counted (a device the kubelet offers nothing for has 0 units: a PF in {@code sriov} mode, an HCA
 * the plugin's selectors leave out, an unhealthy device) or not counted, and then the tree decides
 * (1 per GPU, a given number per HCA). Immutable.
 */
public final class DeviceUnits {

  /** Nothing counted: every unit comes from the tree. */
  public static final DeviceUnits UNCOUNTED = new DeviceUnits(null, null);

  private final Map<String, Integer> gpus;
  private final Map<String, Integer> hcas;

  private DeviceUnits(Map<String, Integer> gpus, Map<String, Integer> hcas) {
    this.gpus = gpus == null ? null : Collections.unmodifiableMap(gpus);
    this.hcas = hcas == null ? null : Collections.unmodifiableMap(hcas);
  }

  /**
   * The units the kubelet's allocatable ids give each device, per governed resource. A resource
   * with no allocatable id, or with an id that stands for no device of its kind in the tree (a MIG
   * device of no known GPU, a plugin naming devices its own way), is left uncounted; such ids are
   * returned in {@link Count#unplaced()}.
   *
   * @param allocatable the kubelet's allocatable ids by resource name; other resources are ignored
   */
  public static Count count(
      Machine machine, ResourceNames resources, Map<String, List<String>> allocatable) {
    return count(machine, MigLayout.NONE, resources, allocatable);
  }

  /**
   * As {@link #count(Machine, ResourceNames, Map)}, reading MIG ids through the node's layout: a
   * GPU offered as N MIG devices under the GPU resource has N units. When the node has MIG devices
   * and the kubelet offers none of the GPU resource (NVIDIA's {@code mixed} strategy with every GPU
   * partitioned), the GPU resource is counted, at 0 units for every GPU: the kubelet grants none.
   */
  public static Count count(
      Machine machine,
      MigLayout mig,
      ResourceNames resources,
      Map<String, List<String>> allocatable) {
    DeviceIds ids = DeviceIds.of(machine, mig);
    List<String> unplaced = new ArrayList<>();
    List<String> offeredGpus = allocatable.get(resources.gpu());
    Map<String, Integer> gpus =
        (offeredGpus == null || offeredGpus.isEmpty()) && !mig.isEmpty()
            ? none(machine.gpus())
            : counted(ids, DeviceKind.GPU, offeredGpus, resources.gpu(), unplaced);
    Map<String, Integer> hcas =
        counted(ids, DeviceKind.HCA, allocatable.get(resources.hca()), resources.hca(), unplaced);
    return new Count(new DeviceUnits(gpus, hcas), unplaced);
  }

  /** Every device at 0 units, published as such (an empty map would read back as uncounted). */
  private static Map<String, Integer> none(List<Device> devices) {
    Map<String, Integer> out = new LinkedHashMap<>();
    devices.forEach(d -> out.put(d.id(), 0));
    return out;
  }

  private static Map<String, Integer> counted(
      DeviceIds ids,
      DeviceKind kind,
      List<String> offered,
      String resource,
      List<String> unplaced) {
    if (offered == null || offered.isEmpty()) {
      return null;
    }
    Map<String, Integer> out = new LinkedHashMap<>();
    boolean whole = true;
    for (String id : offered) {
      Optional<Device> d = ids.device(id).filter(x -> x.kind() == kind);
      if (d.isPresent()) {
        out.merge(d.get().id(), 1, Integer::sum);
      } else {
        unplaced.add(resource + " " + id);
        whole = false;
      }
    }
    return whole ? out : null;
  }

  /** The units published in a NodeTopology's status. */
  public static DeviceUnits of(List<UnitEntry> entries, ResourceNames resources) {
    if (entries == null || entries.isEmpty()) {
      return UNCOUNTED;
    }
    Map<String, Integer> gpus = null;
    Map<String, Integer> hcas = null;
    for (UnitEntry e : entries) {
      if (e.resource() == null || e.device() == null) {
        continue;
      }
      if (e.resource().equals(resources.gpu())) {
        gpus = gpus == null ? new LinkedHashMap<>() : gpus;
        gpus.merge(e.device(), Math.max(0, e.units()), Integer::sum);
      } else if (e.resource().equals(resources.hca())) {
        hcas = hcas == null ? new LinkedHashMap<>() : hcas;
        hcas.merge(e.device(), Math.max(0, e.units()), Integer::sum);
      }
    }
    return new DeviceUnits(gpus, hcas);
  }

  /** As {@code status.units}: one entry per device with units, GPUs first. */
  public List<UnitEntry> entries(ResourceNames resources) {
    List<UnitEntry> out = new ArrayList<>();
    if (gpus != null) {
      gpus.forEach((id, n) -> out.add(new UnitEntry(resources.gpu(), id, n)));
    }
    if (hcas != null) {
      hcas.forEach((id, n) -> out.add(new UnitEntry(resources.hca(), id, n)));
    }
    return out;
  }

  /** Whether the kubelet's devices of a kind were counted. */
  public boolean counted(DeviceKind kind) {
    return (kind == DeviceKind.GPU ? gpus : hcas) != null;
  }

  /**
   * The units of a device: as counted, else 1 for a GPU and {@code hcaUnitsFromTree} for an HCA.
   * Unhealthy devices have the units the kubelet offers; callers that allocate skip them.
   */
  public int units(Device d, int hcaUnitsFromTree) {
    Map<String, Integer> counted = d.kind() == DeviceKind.GPU ? gpus : hcas;
    if (counted != null) {
      return counted.getOrDefault(d.id(), 0);
    }
    return d.kind() == DeviceKind.GPU ? 1 : hcaUnitsFromTree;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceUnits u
        && Objects.equals(u.gpus, gpus)
        && Objects.equals(u.hcas, hcas);
  }

  @Override
  public int hashCode() {
    return Objects.hash(gpus, hcas);
  }

  @Override
  public String toString() {
    return "DeviceUnits[gpus=" + gpus + ", hcas=" + hcas + "]";
  }

  /**
   * What counting found.
   *
   * @param units the units per device
   * @param unplaced allocatable ids ({@code <resource> <id>}) that stand for no device of the tree
   */
  public record Count(DeviceUnits units, List<String> unplaced) {
    public Count {
      unplaced = List.copyOf(unplaced);
    }
  }
}
