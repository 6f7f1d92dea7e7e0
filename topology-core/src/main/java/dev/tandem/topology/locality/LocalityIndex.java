package dev.tandem.topology.locality;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.model.PcieNodeKind;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

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
 *
 * <p>The groups are the tree's {@link GroupLayout}, which trees of one shape can share ({@link
 * #of(Machine, UnaryOperator)}); the index adds the devices themselves.
 */
public final class LocalityIndex {

  /** The key prefix of a device that is a group of its own at a level. */
  private static final String OWN_GROUP = "device:";

  /** Levels that group devices, in order; SYS needs no group. */
  public static final List<Locality> GROUPED_LEVELS =
      List.of(Locality.PIX, Locality.PXB, Locality.PHB, Locality.NODE);

  private final Machine machine;
  private final List<Device> devices;

  /** The devices' indexes in the order of their ids, for a binary search by id. */
  private final int[] byId;

  private final GroupLayout layout;

  private LocalityIndex(Machine machine, GroupLayout layout) {
    this.machine = machine;
    this.devices = machine.devices();
    this.layout = layout;
    this.byId =
        IntStream.range(0, devices.size())
            .boxed()
            .sorted(Comparator.comparing(d -> devices.get(d).id()))
            .mapToInt(Integer::intValue)
            .toArray();
  }

  public static LocalityIndex of(Machine machine) {
    return new LocalityIndex(machine, GroupLayout.of(machine));
  }

  /**
   * The index of a machine whose layout is {@code shared} gives for the machine's own: an equal
   * layout, which a holder of many trees keeps once (nodes of one model share it). Answers are
   * those of {@link #of(Machine)}: equal layouts group the same devices alike.
   *
   * @throws IllegalArgumentException when {@code shared} gives a layout not equal to the tree's
   */
  public static LocalityIndex of(Machine machine, UnaryOperator<GroupLayout> shared) {
    GroupLayout own = GroupLayout.of(machine);
    GroupLayout layout = shared.apply(own);
    if (!own.equals(layout)) {
      throw new IllegalArgumentException(
          "the layout shared for node " + machine.nodeName() + " is not the layout of its tree");
    }
    return new LocalityIndex(machine, layout);
  }

  /** How the devices fall into groups at each level; equal for trees of one shape. */
  public GroupLayout layout() {
    return layout;
  }

  public Machine machine() {
    return machine;
  }

  /** Devices in the machine's canonical order; indexes below refer to this list. */
  public List<Device> devices() {
    return devices;
  }

  public int indexOf(String deviceId) {
    int low = 0;
    int high = byId.length - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      int c = devices.get(byId[mid]).id().compareTo(deviceId);
      if (c == 0) {
        return byId[mid];
      }
      if (c < 0) {
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    throw new IllegalArgumentException(
        "device " + deviceId + " is not on node " + machine.nodeName());
  }

  public Locality locality(String a, String b) {
    return locality(indexOf(a), indexOf(b));
  }

  public Locality locality(int a, int b) {
    if (a == b) {
      return Locality.X;
    }
    for (int level = 0; level < GROUPED_LEVELS.size(); level++) {
      if (layout.group(level, a) == layout.group(level, b)) {
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
    return layout.group(levelIndex(level), device);
  }

  public int groupCount(Locality level) {
    return layout.groupCount(levelIndex(level));
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

  /** The names of a device's groups at the grouped levels, in order. */
  static String[] keys(Device device, Map<String, PcieNode> nodes) {
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
