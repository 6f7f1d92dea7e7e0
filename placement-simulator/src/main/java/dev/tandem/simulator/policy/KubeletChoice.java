package dev.tandem.simulator.policy;

import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;

/**
 * The kubelet's own pick when a device plugin gives no preferred allocation: the device manager
 * takes the first devices of its available set, a Go map whose order is random
 * (pkg/kubelet/cm/devicemanager/manager.go, devicesToAllocate: {@code available.UnsortedList()}).
 */
final class KubeletChoice {

  private KubeletChoice() {}

  /** {@code count} free devices of a kind drawn uniformly among those {@code where} accepts. */
  static List<String> random(
      Availability free, DeviceKind kind, int count, Predicate<Device> where, Random random) {
    List<String> candidates = new ArrayList<>();
    List<Device> devices = free.index().devices();
    for (int d = 0; d < devices.size(); d++) {
      Device device = devices.get(d);
      if (device.kind() == kind && free.free(d) > 0 && where.test(device)) {
        candidates.add(device.id());
      }
    }
    List<String> out = new ArrayList<>(count);
    for (int i = 0; i < count && !candidates.isEmpty(); i++) {
      out.add(candidates.remove(random.nextInt(candidates.size())));
    }
    return out;
  }
}
