package dev.tandem.topology.allocation;

import dev.tandem.topology.allocation.Infeasible.Shortfall;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.Alignment;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * The allocator's refusals, one instance per distinct refusal. Thousands of nodes refuse a new pod
 * shape for the same few reasons; sharing them saves building each sentence once per node, which
 * would cost more than deciding. The reasons name no device: kube-scheduler counts identical
 * reasons across nodes ("0/N nodes are available: 4990 ..."), so a reason per node would list every
 * node in the pod's event.
 */
final class Refusals {

  /** Beyond this many distinct refusals, new ones are built each time, never kept. */
  private static final int MAX = 4096;

  static final Infeasible NO_GPUS =
      new Infeasible(Shortfall.NO_GPUS, "node has no GPUs", null, false);
  static final Infeasible NO_HCAS =
      new Infeasible(Shortfall.NO_HCAS, "node has no RDMA HCAs", null, false);

  private record Shortage(DeviceKind kind, int free, int need, boolean resolvable) {}

  /**
   * @param fits on a NUMA-only node, the tightest alignment the request would get there; else null
   */
  private record Misaligned(
      AllocationRequest request, Locality best, boolean resolvable, Alignment fits) {}

  private static final ConcurrentMap<Object, Infeasible> KNOWN = new ConcurrentHashMap<>();

  /** Shortages of up to this many free units are kept in a {@link Row}. */
  private static final int ROW_UNITS = 64;

  private static final int MISALIGNED = 2 * 2 * ROW_UNITS;

  /**
   * Misaligned refusals per best locality: resolvable, not, and on a NUMA-only node with {@code
   * numa} or only {@code none} fitting.
   */
  private static final int VARIANTS = 4;

  /**
   * The refusals of one request, by slot: a filter asks about one request for thousands of nodes in
   * a row, and a slot costs less to read than a key to hash. One per thread, for the request it
   * asked about last.
   */
  private static final class Row {
    final AllocationRequest request;
    final Infeasible[] slots = new Infeasible[MISALIGNED + VARIANTS * Locality.values().length];

    Row(AllocationRequest request) {
      this.request = request;
    }
  }

  private static final ThreadLocal<Row> LAST = new ThreadLocal<>();

  private Refusals() {}

  /** Fewer free units of a kind than the request needs. */
  static Infeasible shortage(
      AllocationRequest request, DeviceKind kind, int free, int need, boolean resolvable) {
    if (free >= ROW_UNITS) {
      return known(new Shortage(kind, free, need, resolvable));
    }
    int slot = ((kind == DeviceKind.GPU ? 0 : ROW_UNITS) + free) * 2 + (resolvable ? 1 : 0);
    return inRow(request, slot, () -> new Shortage(kind, free, need, resolvable));
  }

  /**
   * Enough devices, none as close as the pod's alignment asks.
   *
   * @param best the closest the request gets now
   * @param whenEmpty the closest it would get with every healthy device free
   * @param closest the closest pair of a healthy GPU and HCA with every device free: worse than
   *     {@code PHB} makes this a NUMA-only node (no HCA shares a host bridge with a GPU, as on a
   *     Grace tray without ConnectX-8 Data Direct), whose refusal says which alignment fits there
   */
  static Infeasible misaligned(
      AllocationRequest request, Locality best, Locality whenEmpty, Locality closest) {
    boolean resolvable = whenEmpty.isWithin(request.policy().filterLimit());
    Alignment fits = null;
    int variant = resolvable ? 0 : 1;
    if (!resolvable && !closest.isWithin(Locality.PHB)) {
      fits = whenEmpty.isWithin(Alignment.NUMA.worstAllowed()) ? Alignment.NUMA : Alignment.NONE;
      variant = fits == Alignment.NUMA ? 2 : 3;
    }
    Alignment fitting = fits;
    int slot = MISALIGNED + best.ordinal() * VARIANTS + variant;
    return inRow(request, slot, () -> new Misaligned(request, best, resolvable, fitting));
  }

  private static Infeasible inRow(AllocationRequest request, int slot, Supplier<Object> key) {
    Row row = LAST.get();
    if (row == null || (row.request != request && !row.request.equals(request))) {
      row = new Row(request);
      LAST.set(row);
    }
    Infeasible known = row.slots[slot];
    if (known == null) {
      known = known(key.get());
      row.slots[slot] = known;
    }
    return known;
  }

  private static Infeasible known(Object key) {
    Infeasible known = KNOWN.get(key);
    if (known != null) {
      return known;
    }
    Infeasible made = make(key);
    if (KNOWN.size() >= MAX) {
      return made;
    }
    known = KNOWN.putIfAbsent(key, made);
    return known == null ? made : known;
  }

  private static Infeasible make(Object key) {
    if (key instanceof Shortage s) {
      String noun = s.kind() == DeviceKind.GPU ? "GPU" : "HCA";
      return new Infeasible(
          s.kind() == DeviceKind.GPU ? Shortfall.NOT_ENOUGH_GPUS : Shortfall.NOT_ENOUGH_HCAS,
          "node has "
              + s.free()
              + " free healthy "
              + noun
              + (s.free() == 1 ? "" : "s")
              + ", pod needs "
              + s.need(),
          null,
          s.resolvable());
    }
    Misaligned m = (Misaligned) key;
    return new Infeasible(
        Shortfall.ALIGNMENT,
        alignmentReason(m.request(), m.best()) + numaOnly(m.fits()),
        m.best(),
        m.resolvable());
  }

  private static String alignmentReason(AllocationRequest r, Locality best) {
    Alignment a = r.policy().alignment();
    String where =
        switch (a) {
          case SWITCH -> "under one PCIe switch";
          case ROOT_COMPLEX -> "under one root complex";
          case NUMA -> "within one NUMA node";
          case NONE -> "anywhere";
        };
    return r.describe()
        + " need "
        + where
        + " ("
        + a.worstAllowed()
        + " or better, "
        + "tandem.dev/alignment="
        + a.value()
        + "); best on this node now is "
        + best;
  }

  /** What a NUMA-only node's refusal adds: the node's class and the alignment that fits. */
  private static String numaOnly(Alignment fits) {
    if (fits == null) {
      return "";
    }
    return ". "
        + NUMA_ONLY
        + ": tandem.dev/alignment="
        + fits.value()
        + " fits (on the pod, or as a node-class default)";
  }

  /** The class of node whose HCAs share no PCIe host bridge with a GPU. */
  static final String NUMA_ONLY =
      "NUMA-only node (no HCA shares a PCIe host bridge with a GPU, as on a Grace tray without"
          + " ConnectX-8 Data Direct)";
}
