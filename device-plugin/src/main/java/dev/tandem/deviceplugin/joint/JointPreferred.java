package dev.tandem.deviceplugin.joint;

import dev.tandem.deviceplugin.gpu.GpuTable;
import dev.tandem.deviceplugin.inventory.DeviceTable;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.tandem.topology.allocation.Allocation;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetPreferredAllocation of both resources in joint mode, answered from one shared state. The first
 * call of a container (either resource) decides the container's whole set — the pod's plan when its
 * devices are all offered and free, else the allocator's best joint choice — answers its own side
 * and reserves the other; the second call answers exactly the reserved devices when they are all
 * offered and the first side got what was reserved, else the devices nearest what the first side
 * got. Never fails a call. Allocate calls are reported through {@link #allocated} so that the
 * second side follows what the kubelet actually allocated, and so that finished reservations are
 * dropped.
 */
public final class JointPreferred {

  private static final Logger LOG = LoggerFactory.getLogger(JointPreferred.class);

  private final DeviceTable hcaTable;
  private final GpuTable gpuTable;
  private final String gpuResource;
  private final JointChooser chooser;
  private final PodMatcher matcher;
  private final JointState state;

  public JointPreferred(
      DeviceTable hcaTable,
      GpuTable gpuTable,
      String gpuResource,
      PodMatcher matcher,
      Clock clock,
      Duration ttl) {
    this.hcaTable = hcaTable;
    this.gpuTable = gpuTable;
    this.gpuResource = gpuResource;
    this.chooser = new JointChooser(hcaTable.inventory());
    this.matcher = matcher;
    this.state = new JointState(clock, ttl);
  }

  /** Live reservations (for tests and the log). */
  public int reservations() {
    return state.size();
  }

  public Future<PreferredAllocationResponse> answer(Side side, PreferredAllocationRequest request) {
    List<Future<ContainerPreferredAllocationResponse>> each = new ArrayList<>();
    for (ContainerPreferredAllocationRequest c : request.getContainerRequestsList()) {
      each.add(
          container(side, c)
              .map(
                  ids ->
                      ContainerPreferredAllocationResponse.newBuilder()
                          .addAllDeviceIDs(ids)
                          .build()));
    }
    return Future.all(each)
        .map(
            all -> {
              PreferredAllocationResponse.Builder b = PreferredAllocationResponse.newBuilder();
              each.forEach(f -> b.addContainerResponses(f.result()));
              return b.build();
            });
  }

  private Future<List<String>> container(Side side, ContainerPreferredAllocationRequest c) {
    int size = c.getAllocationSize();
    // the kubelet finishes a resource (Allocate included) before it starts the next: a reservation
    // whose
    // first side was never allocated belongs to an admission that did not go on
    Optional<Reservation> waiting =
        state.oldest(
            r ->
                r.first == side.other()
                    && r.allocated(r.first)
                    && !r.answered(side)
                    && (r.size(side) == size || r.size(side) < 0));
    if (waiting.isPresent()) {
      return Future.succeededFuture(second(side, c, waiting.get()));
    }
    return matcher
        .match(side, size)
        .recover(
            e ->
                Future.succeededFuture(
                    PodMatch.unknown(side, size, "pod lookup failed: " + e.getMessage())))
        .map(match -> first(side, c, match));
  }

  private List<String> second(Side side, ContainerPreferredAllocationRequest c, Reservation r) {
    synchronized (state) {
      int size = c.getAllocationSize();
      List<String> offered = c.getAvailableDeviceIDsList();
      List<String> reserved = r.reserved(side);
      boolean exact =
          r.firstAsReserved() && reserved.size() == size && offered(side, reserved, offered);
      List<String> ids =
          side == Side.GPU
              ? chooser.gpus(
                  offered,
                  c.getMustIncludeDeviceIDsList(),
                  size,
                  exact ? reserved : List.of(),
                  r.firstDevices())
              : chooser.hcas(
                  offered,
                  c.getMustIncludeDeviceIDsList(),
                  size,
                  exact ? reserved : List.of(),
                  r.firstDevices());
      r.answer(side, topologyIds(side, ids));
      LOG.info(
          "preferred {} {} of {} available: {} ({}; second of {})",
          size,
          side.label(),
          offered.size(),
          ids,
          exact
              ? "exactly the reserved set"
              : "reserved set not offered or first side differs: nearest the "
                  + side.other().label()
                  + "s "
                  + r.firstDevices(),
          r);
      return ids;
    }
  }

  private List<String> first(Side side, ContainerPreferredAllocationRequest c, PodMatch m) {
    synchronized (state) {
      int size = c.getAllocationSize();
      List<String> offered = c.getAvailableDeviceIDsList();
      Choice choice = decide(side, offered, m);
      List<String> ids =
          side == Side.GPU
              ? chooser.gpus(
                  offered, c.getMustIncludeDeviceIDsList(), size, choice.gpus, choice.hcas)
              : chooser.hcas(
                  offered, c.getMustIncludeDeviceIDsList(), size, choice.hcas, choice.gpus);
      int otherSize = side == Side.GPU ? m.hcas() : m.gpus();
      if (otherSize != 0) {
        Reservation r =
            new Reservation(
                m.key(), side, choice.gpus, choice.hcas, size, otherSize, state.now(), choice.why);
        r.answer(side, topologyIds(side, ids));
        state.add(r);
      }
      LOG.info(
          "preferred {} {} of {} available: {} (first of its container: {}; {}; reserved {} for the {})",
          size,
          side.label(),
          offered.size(),
          ids,
          m.why(),
          choice.why,
          side == Side.GPU ? choice.hcas : choice.gpus,
          otherSize == 0
              ? "nothing: no " + side.other().label() + "s asked"
              : side.other().label() + "s");
      return ids;
    }
  }

  private record Choice(List<String> gpus, List<String> hcas, String why) {}

  private Choice decide(Side side, List<String> offered, PodMatch m) {
    Map<String, Integer> gpuFree =
        side == Side.GPU ? unitsOf(Side.GPU, offered) : freeOther(Side.GPU, m);
    Map<String, Integer> hcaFree =
        side == Side.HCA ? unitsOf(Side.HCA, offered) : freeOther(Side.HCA, m);
    int gpus = m.gpus() >= 0 ? m.gpus() : m.hcas();
    int hcas = m.hcas() >= 0 ? m.hcas() : m.gpus();
    if (m.pod() != null) {
      List<String> planGpus = m.pod().plan().gpus();
      List<String> planHcas = m.pod().plan().hcas().stream().map(chooser::canonicalHca).toList();
      if (planGpus.size() == gpus
          && planHcas.size() == hcas
          && fits(planGpus, gpuFree)
          && fits(planHcas, hcaFree)) {
        return new Choice(planGpus, planHcas, "following the plan of " + m.pod().key());
      }
    }
    int hcaUnits = hcaFree.values().stream().mapToInt(Integer::intValue).sum();
    int gpuUnits = gpuFree.size();
    if (side == Side.GPU) {
      hcas = Math.min(hcas, hcaUnits);
    } else {
      gpus = Math.min(gpus, gpuUnits);
    }
    Optional<Allocation> a = chooser.best(gpus, hcas, gpuFree, hcaFree);
    String why =
        (m.pod() == null ? "no plan" : "plan of " + m.pod().key() + " not free")
            + ": allocator's best for "
            + gpus
            + " GPUs + "
            + hcas
            + " HCAs";
    return a.map(x -> new Choice(x.gpuIds(), x.hcaIds(), why))
        .orElse(new Choice(List.of(), List.of(), "allocator found no joint set; kubelet order"));
  }

  private boolean offered(Side side, List<String> reserved, List<String> offered) {
    return side == Side.GPU
        ? Set.copyOf(offered).containsAll(reserved)
        : chooser.hcasOffered(reserved, offered);
  }

  private static boolean fits(List<String> ids, Map<String, Integer> free) {
    Map<String, Integer> need = new HashMap<>();
    ids.forEach(id -> need.merge(id, 1, Integer::sum));
    return need.entrySet().stream().allMatch(e -> free.getOrDefault(e.getKey(), 0) >= e.getValue());
  }

  private Map<String, Integer> unitsOf(Side side, List<String> ids) {
    Map<String, Integer> out = new HashMap<>();
    for (String id : ids) {
      out.merge(side == Side.GPU ? id : chooser.hcaUnit(id), 1, Integer::sum);
    }
    return out;
  }

  /** The other side's free units: healthy, not held by a container (PodResources), not reserved. */
  private Map<String, Integer> freeOther(Side side, PodMatch m) {
    Set<String> held = new HashSet<>();
    String resource = side == Side.GPU ? gpuResource : hcaTable.inventory().config().resourceName();
    matcher.lastHoldings().stream()
        .filter(h -> h.resource().equals(resource))
        .forEach(h -> held.addAll(h.deviceIds()));
    List<String> ids = side == Side.GPU ? gpuTable.healthyIds() : hcaTable.healthyIds();
    Map<String, Integer> free =
        unitsOf(side, ids.stream().filter(id -> !held.contains(id)).toList());
    for (Reservation r : state.all()) {
      for (String id : r.answered(side) ? r.answeredIds(side) : r.reserved(side)) {
        free.computeIfPresent(id, (k, v) -> v > 1 ? v - 1 : null);
      }
    }
    return free;
  }

  private List<String> topologyIds(Side side, List<String> ids) {
    return side == Side.GPU ? List.copyOf(ids) : chooser.hcaUnits(ids);
  }

  /** Records what the kubelet allocated; a reservation with both sides allocated is dropped. */
  public void allocated(Side side, AllocateRequest request) {
    for (ContainerAllocateRequest c : request.getContainerRequestsList()) {
      List<String> ids = topologyIds(side, c.getDevicesIdsList());
      synchronized (state) {
        Optional<Reservation> r =
            state
                .oldest(
                    x ->
                        x.answered(side)
                            && !x.allocated(side)
                            && Reservation.sameUnits(x.answeredIds(side), ids))
                .or(
                    () ->
                        state.oldest(
                            x ->
                                x.answered(side)
                                    && !x.allocated(side)
                                    && x.answeredIds(side).size() == ids.size()))
                // the kubelet skips GetPreferredAllocation when reusable init-container devices
                // cover the request
                .or(
                    () ->
                        state.oldest(
                            x ->
                                x.first == side.other()
                                    && x.allocated(x.first)
                                    && !x.answered(side)
                                    && (x.size(side) == ids.size() || x.size(side) < 0)));
        r.ifPresent(
            x -> {
              if (!x.answered(side)) {
                x.answer(side, ids);
              }
              x.allocate(side, ids);
              if (x.done()) {
                state.remove(x);
              }
            });
      }
    }
  }
}
