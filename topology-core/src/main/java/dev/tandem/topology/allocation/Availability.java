package dev.tandem.topology.allocation;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.Arrays;
import java.util.Collection;
import java.util.function.ToIntFunction;

/**
 * How many units of each device of a machine are free: 0 or 1 for a whole GPU or HCA, the free
 * replicas of a time-sliced GPU, the free slots of a shared HCA. Unhealthy devices have none.
 * Immutable; cheap to share between threads.
 */
public final class Availability {

  private final LocalityIndex index;
  private final int[] free;
  private final int[] capacity;

  /**
   * Units per group, free and when nothing is taken, made on first use (racing threads make equal
   * ones).
   */
  private GroupCounts counts;

  private GroupCounts capacityCounts;

  private Availability(LocalityIndex index, int[] free, int[] capacity) {
    this.index = index;
    this.free = free;
    this.capacity = capacity;
  }

  /** Every healthy device free, each GPU with 1 unit and each HCA with {@code slotsPerHca}. */
  public static Availability allFree(LocalityIndex index, int slotsPerHca) {
    if (slotsPerHca < 1) {
      throw new IllegalArgumentException("slots per HCA must be at least 1, got " + slotsPerHca);
    }
    return allFree(index, d -> d.kind() == DeviceKind.GPU ? 1 : slotsPerHca);
  }

  /**
   * Every healthy device free with the units given: several for a shared HCA or a time-sliced GPU,
   * 0 for a device nothing is offered for (a PF whose VFs are the devices).
   */
  public static Availability allFree(LocalityIndex index, ToIntFunction<Device> units) {
    int[] free = new int[index.devices().size()];
    for (int i = 0; i < free.length; i++) {
      Device d = index.devices().get(i);
      int n = units.applyAsInt(d);
      if (n < 0) {
        throw new IllegalArgumentException("device " + d.id() + " has " + n + " units");
      }
      free[i] = d.healthy() ? n : 0;
    }
    return new Availability(index, free, free);
  }

  /**
   * This availability minus one unit per id; an HCA id may appear several times (shared slots). Ids
   * of devices not on the machine are ignored (an agent may report a device that is gone), as are
   * units already taken.
   */
  public Availability without(Collection<String> deviceIds) {
    int[] next = Arrays.copyOf(free, free.length);
    for (String id : deviceIds) {
      try {
        int i = index.indexOf(id);
        next[i] = Math.max(0, next[i] - 1);
      } catch (IllegalArgumentException unknown) {
        // not on this machine: nothing to take
      }
    }
    return new Availability(index, next, capacity);
  }

  /** The same devices with nothing taken: what the node could offer if every pod on it left. */
  public Availability emptied() {
    return new Availability(index, capacity, capacity);
  }

  /** Units of a kind when nothing is taken (healthy devices only). */
  public int capacityUnits(DeviceKind kind) {
    int sum = 0;
    for (int i = 0; i < capacity.length; i++) {
      if (index.devices().get(i).kind() == kind) {
        sum += capacity[i];
      }
    }
    return sum;
  }

  public LocalityIndex index() {
    return index;
  }

  /**
   * Whether every device has at most one unit (whole GPUs and HCAs): then the allocator's {@link
   * Allocator#verdict} is decided from the free devices per group, without choosing any.
   */
  public boolean wholeDevices() {
    return counts() != GroupCounts.NONE;
  }

  /**
   * Units per group at every level, made once per availability and read by every request; {@link
   * GroupCounts#NONE} when some device has more than one unit.
   */
  public GroupCounts counts() {
    GroupCounts c = counts;
    if (c == null) {
      c = GroupCounts.of(this);
      counts = c;
    }
    return c;
  }

  public int free(int device) {
    return free[device];
  }

  /** Units of the device when nothing is taken (0 for an unhealthy device). */
  public int capacity(int device) {
    return capacity[device];
  }

  public int free(String deviceId) {
    return free[index.indexOf(deviceId)];
  }

  public int freeUnits(DeviceKind kind) {
    int sum = 0;
    for (int i = 0; i < free.length; i++) {
      if (index.devices().get(i).kind() == kind) {
        sum += free[i];
      }
    }
    return sum;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Availability a && a.index == index && Arrays.equals(a.free, free);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(free);
  }
}
