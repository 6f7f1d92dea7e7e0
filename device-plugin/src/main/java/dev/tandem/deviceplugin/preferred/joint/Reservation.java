package dev.tandem.deviceplugin.preferred.joint;

import dev.tandem.deviceplugin.preferred.PreferredOutcome;
import dev.tandem.deviceplugin.preferred.Side;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One container's joint choice, made at its first GetPreferredAllocation and waiting for the
 * second. Devices are kept as topology ids (GPU UUIDs; HCA ids as the allocator returns them, an
 * HCA repeated once per shared slot). Mutable; guarded by {@link Reservations}' lock.
 */
final class Reservation {

  final String pod;
  final Side first;
  final Instant created;
  final String why;
  final PreferredOutcome outcome;
  private final Map<Side, List<String>> reserved = new EnumMap<>(Side.class);
  private final Map<Side, Integer> sizes = new EnumMap<>(Side.class);
  private final Map<Side, List<String>> answered = new EnumMap<>(Side.class);
  private final Map<Side, List<String>> allocated = new EnumMap<>(Side.class);

  /**
   * @param pod {@code namespace/name/container} when the pod is known, else null
   * @param gpus reserved GPUs
   * @param hcas reserved HCA units
   * @param otherSize the size the second call should have, or -1 when unknown (no API server)
   */
  Reservation(
      String pod,
      Side first,
      List<String> gpus,
      List<String> hcas,
      int firstSize,
      int otherSize,
      Instant created,
      String why,
      PreferredOutcome outcome) {
    this.pod = pod;
    this.outcome = outcome;
    this.first = first;
    this.created = created;
    this.why = why;
    reserved.put(Side.GPU, List.copyOf(gpus));
    reserved.put(Side.HCA, List.copyOf(hcas));
    sizes.put(first, firstSize);
    sizes.put(first.other(), otherSize);
  }

  List<String> reserved(Side s) {
    return reserved.get(s);
  }

  /** The expected allocation size of a side, or -1 when unknown. */
  int size(Side s) {
    return sizes.get(s);
  }

  boolean answered(Side s) {
    return answered.containsKey(s);
  }

  void answer(Side s, List<String> topologyIds) {
    answered.put(s, List.copyOf(topologyIds));
  }

  List<String> answeredIds(Side s) {
    return answered.getOrDefault(s, List.of());
  }

  boolean allocated(Side s) {
    return allocated.containsKey(s);
  }

  void allocate(Side s, List<String> topologyIds) {
    allocated.put(s, List.copyOf(topologyIds));
  }

  /**
   * What the second side follows: what the kubelet allocated for the first side, else what was
   * answered.
   */
  List<String> firstDevices() {
    return allocated.getOrDefault(first, answered.getOrDefault(first, reserved.get(first)));
  }

  /**
   * Whether the first side got exactly the reserved devices (so the reserved second side is the
   * plan).
   */
  boolean firstAsReserved() {
    return sameUnits(firstDevices(), reserved.get(first));
  }

  boolean done() {
    return allocated.containsKey(Side.GPU) && allocated.containsKey(Side.HCA);
  }

  static boolean sameUnits(List<String> a, List<String> b) {
    return a.size() == b.size()
        && a.stream().sorted().toList().equals(b.stream().sorted().toList());
  }

  @Override
  public String toString() {
    return (pod == null ? "unknown pod" : pod)
        + ", "
        + first.label()
        + " first, GPUs "
        + reserved.get(Side.GPU)
        + ", HCAs "
        + reserved.get(Side.HCA);
  }
}
