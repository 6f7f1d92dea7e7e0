package dev.tandem.topology.locality;

import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PcieNode;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How the devices of one tree fall into groups at each locality level ({@link #LEVELS}: {@code
 * PIX}, {@code PXB}, {@code PHB}, {@code NODE}, and {@code SYS}, one group of all): each device's
 * group, the number of groups, each group's members in canonical order, and which devices are GPUs.
 * Groups are numbered in the order their first device comes. Everything the {@link LocalityIndex}
 * and the allocator read of a tree, other than its devices' ids and health.
 *
 * <p>A layout is a function of the tree's shape alone (its PCIe nodes and, in canonical order, the
 * kind of each device and the node it hangs off), and two layouts are equal when their groups and
 * kinds are: nodes of one hardware model have equal layouts whatever their GPU UUIDs and HCA GUIDs,
 * and a holder of many trees keeps one of each ({@link LocalityIndex#of(Machine,
 * java.util.function.UnaryOperator)}). Immutable; the arrays it hands out are its own, shared by
 * every tree of the layout: read them, never write.
 */
public final class GroupLayout {

  /** The levels of a layout, finest first; a level's index is its number in the methods below. */
  public static final List<Locality> LEVELS =
      List.of(Locality.PIX, Locality.PXB, Locality.PHB, Locality.NODE, Locality.SYS);

  /** groupOf[level][device]: the group of each device at each level. */
  private final int[][] groupOf;

  private final int[] groupCount;

  /** members[level][group]: the devices of each group, in canonical order. */
  private final int[][][] members;

  private final boolean[] gpu;
  private final int hash;

  private GroupLayout(int[][] groupOf, int[] groupCount, boolean[] gpu) {
    this.groupOf = groupOf;
    this.groupCount = groupCount;
    this.gpu = gpu;
    this.members = new int[groupOf.length][][];
    for (int level = 0; level < groupOf.length; level++) {
      members[level] = membersByGroup(groupOf[level], groupCount[level]);
    }
    this.hash = 31 * Arrays.deepHashCode(groupOf) + Arrays.hashCode(gpu);
  }

  /** The layout of a machine's tree (see {@link LocalityIndex} for the rule of each level). */
  public static GroupLayout of(Machine machine) {
    List<Device> devices = machine.devices();
    int n = devices.size();
    int sys = LEVELS.size() - 1;
    int[][] groupOf = new int[LEVELS.size()][n];
    int[] groupCount = new int[LEVELS.size()];
    boolean[] gpu = new boolean[n];
    Map<String, PcieNode> nodes = new HashMap<>();
    machine.pcie().forEach(node -> nodes.put(node.id(), node));
    List<Map<String, Integer>> numbering =
        LEVELS.stream().<Map<String, Integer>>map(l -> new HashMap<>()).toList();
    for (int d = 0; d < n; d++) {
      Device device = devices.get(d);
      gpu[d] = device.kind() == DeviceKind.GPU;
      String[] keys = LocalityIndex.keys(device, nodes);
      for (int level = 0; level < sys; level++) {
        Map<String, Integer> names = numbering.get(level);
        groupOf[level][d] = names.computeIfAbsent(keys[level], k -> names.size());
      }
    }
    for (int level = 0; level < sys; level++) {
      groupCount[level] = numbering.get(level).size();
    }
    groupCount[sys] = 1;
    return new GroupLayout(groupOf, groupCount, gpu);
  }

  private static int[][] membersByGroup(int[] groupOfDevice, int groups) {
    int[] sizes = new int[groups];
    for (int g : groupOfDevice) {
      sizes[g]++;
    }
    int[][] out = new int[groups][];
    for (int g = 0; g < groups; g++) {
      out[g] = new int[sizes[g]];
      sizes[g] = 0;
    }
    for (int d = 0; d < groupOfDevice.length; d++) {
      int g = groupOfDevice[d];
      out[g][sizes[g]++] = d;
    }
    return out;
  }

  /** The number of devices. */
  public int size() {
    return gpu.length;
  }

  /** The group of a device at a level (an index into {@link #LEVELS}). */
  public int group(int level, int device) {
    return groupOf[level][device];
  }

  public int groupCount(int level) {
    return groupCount[level];
  }

  /** The devices of a group at a level, in canonical order: the layout's own array, read only. */
  public int[] members(int level, int group) {
    return members[level][group];
  }

  public boolean isGpu(int device) {
    return gpu[device];
  }

  @Override
  public boolean equals(Object o) {
    return o == this
        || o instanceof GroupLayout l
            && l.hash == hash
            && Arrays.equals(l.gpu, gpu)
            && Arrays.deepEquals(l.groupOf, groupOf);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return "GroupLayout" + Arrays.toString(groupCount) + " of " + gpu.length + " devices";
  }
}
