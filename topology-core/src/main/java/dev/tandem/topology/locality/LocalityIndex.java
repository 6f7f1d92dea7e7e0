package dev.tandem.topology.locality;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.PcieNodeKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Locality between any two devices of a machine, computed from the tree and nothing else.
 *
 * <p>Each device gets one group per level; two devices are at the first level whose groups match:
 *
 * <ul>
 *   <li>{@code PIX}: the switch the device hangs off (the upstream port above its downstream port),
 *       or its root port when it sits on a root port directly;
 *   <li>{@code PXB}: its root port (everything below one root port meets at a bridge);
 *   <li>{@code PHB}: its host bridge;
 *   <li>{@code NODE}: its CPU domain;
 *   <li>{@code SYS}: otherwise.
 * </ul>
 *
 * <p>This is nvidia-smi's rule (PIX when at most one bridge lies between each device and their
 * meeting bridge) on every real PCIe shape, and by construction each level partitions the devices,
 * which is what lets the allocator reason in groups. Levels a device lacks (no bridge above it) get
 * a group of its own.
 */
public final class LocalityIndex {

  /** The key prefix of a device that is a group of its own at a level. */
  private static final String OWN_GROUP = "device:";

  /** Levels that group devices, in order; SYS needs no group. */
  public static final List<Locality> GROUPED_LEVELS =
      List.of(Locality.PIX, Locality.PXB, Locality.PHB, Locality.NODE);

  private final Machine machine;
  private final List<Device> devices;
  private final Map<String, Integer> indexById = new HashMap<>();

  /** groups[level][device]: group number of each device at each grouped level. */
  private final int[][] groups;

  private final int[] groupCounts;

  private LocalityIndex(Machine machine) {
    this.machine = machine;
    this.devices = machine.devices();
    this.groups = new int[GROUPED_LEVELS.size()][devices.size()];
    this.groupCounts = new int[GROUPED_LEVELS.size()];
    Map<String, PcieNode> nodes = new HashMap<>();
    machine.pcie().forEach(n -> nodes.put(n.id(), n));
    List<Map<String, Integer>> numbering =
        GROUPED_LEVELS.stream().<Map<String, Integer>>map(l -> new HashMap<>()).toList();
    for (int d = 0; d < devices.size(); d++) {
      Device device = devices.get(d);
      indexById.put(device.id(), d);
      String[] keys = keys(device, nodes);
      for (int level = 0; level < keys.length; level++) {
        Map<String, Integer> names = numbering.get(level);
        groups[level][d] = names.computeIfAbsent(keys[level], k -> names.size());
      }
    }
    for (int level = 0; level < groupCounts.length; level++) {
      groupCounts[level] = numbering.get(level).size();
    }
  }

  public static LocalityIndex of(Machine machine) {
    return new LocalityIndex(machine);
  }

  public Machine machine() {
    return machine;
  }

  /** Devices in the machine's canonical order; indexes below refer to this list. */
  public List<Device> devices() {
    return devices;
  }

  public int indexOf(String deviceId) {
    Integer i = indexById.get(deviceId);
    if (i == null) {
      throw new IllegalArgumentException(
          "device " + deviceId + " is not on node " + machine.nodeName());
    }
    return i;
  }

  public Locality locality(String a, String b) {
    return locality(indexOf(a), indexOf(b));
  }

  public Locality locality(int a, int b) {
    if (a == b) {
      return Locality.X;
    }
    for (int level = 0; level < groups.length; level++) {
      if (groups[level][a] == groups[level][b]) {
        return GROUPED_LEVELS.get(level);
      }
    }
    return Locality.SYS;
  }

  /**
   * How well a set of GPUs and HCAs is paired: for each device, the locality of the nearest device
   * of the other kind in the set, and the worst of those. A set meets an alignment when this is
   * within the alignment's limit: every GPU has an HCA that near and every HCA a GPU (the
   * allocator's first rule). {@link Locality#X} when either kind is absent.
   *
   * @param gpus indexes of the GPUs (in {@link #devices()})
   * @param hcas indexes of the HCAs
   */
  public Locality pairing(int[] gpus, int[] hcas) {
    if (gpus.length == 0 || hcas.length == 0) {
      return Locality.X;
    }
    return Locality.worse(nearestWorst(gpus, hcas), nearestWorst(hcas, gpus));
  }

  /** {@link #pairing(int[], int[])} of devices named by their ids. */
  public Locality pairing(List<String> gpuIds, List<String> hcaIds) {
    return pairing(indexes(gpuIds), indexes(hcaIds));
  }

  private int[] indexes(List<String> ids) {
    int[] out = new int[ids.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = indexOf(ids.get(i));
    }
    return out;
  }

  private Locality nearestWorst(int[] from, int[] to) {
    Locality worst = Locality.X;
    for (int a : from) {
      Locality nearest = Locality.SYS;
      for (int b : to) {
        Locality l = locality(a, b);
        nearest = l.compareTo(nearest) < 0 ? l : nearest;
      }
      worst = Locality.worse(worst, nearest);
    }
    return worst;
  }

  /**
   * The group of a device at a grouped level ({@code PIX}, {@code PXB}, {@code PHB}, {@code NODE}).
   */
  public int group(Locality level, int device) {
    return groups[levelIndex(level)][device];
  }

  public int groupCount(Locality level) {
    return groupCounts[levelIndex(level)];
  }

  /** The PCIe node that names a device's group at {@code PIX} level: its switch or root port. */
  public static String switchOf(Device device, Map<String, PcieNode> nodes) {
    return keys(device, nodes)[0];
  }

  /**
   * The PCIe node that names a device's group at a grouped level ({@code PIX}: its switch or root
   * port; {@code PXB}: its root port; {@code PHB}: its host bridge; {@code NODE}: its CPU domain);
   * empty when the device has no such node above it and so is a group of its own at that level.
   */
  public static Optional<PcieNode> groupNode(
      Locality level, Device device, Map<String, PcieNode> nodes) {
    String key = keys(device, nodes)[levelIndex(level)];
    return key.startsWith(OWN_GROUP) ? Optional.empty() : Optional.ofNullable(nodes.get(key));
  }

  private static int levelIndex(Locality level) {
    int i = GROUPED_LEVELS.indexOf(level);
    if (i < 0) {
      throw new IllegalArgumentException("no groups at level " + level);
    }
    return i;
  }

  private static String[] keys(Device device, Map<String, PcieNode> nodes) {
    String own = OWN_GROUP + device.id();
    String pix = own;
    String pxb = own;
    String phb = own;
    String numa = own;
    PcieNode parent = nodes.get(device.parentId());
    if (parent.isBridge()) {
      PcieNode above = nodes.get(parent.parentId());
      boolean downstreamPort = above.isBridge() && parent.kind() != PcieNodeKind.SWITCH_UPSTREAM;
      pix = downstreamPort ? above.id() : parent.id();
    }
    for (PcieNode at = parent;
        at != null;
        at = at.parentId() == null ? null : nodes.get(at.parentId())) {
      switch (at.kind()) {
        case ROOT_PORT -> pxb = at.id();
        case HOST_BRIDGE -> phb = at.id();
        case CPU_DOMAIN -> numa = at.id();
        default -> {}
      }
    }
    return new String[] {pix, pxb, phb, numa};
  }
}
