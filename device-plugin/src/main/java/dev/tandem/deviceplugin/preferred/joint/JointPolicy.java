package dev.tandem.deviceplugin.preferred.joint;

import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.preferred.Holdings;
import dev.tandem.deviceplugin.preferred.PendingPod;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.PreferredOutcome;
import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.topology.allocation.Allocation;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Joint mode: the plugin serves both {@code nvidia.com/gpu} and {@code rdma/hca}, and answers
 * GetPreferredAllocation of both from one shared state: one policy for both resources, each request
 * naming its {@link Side}. The first call of a container (either resource) decides the container's
 * whole set — the pod's plan when its devices are all offered and free, else the allocator's best
 * joint choice — answers its own side and reserves the other; the second call answers exactly the
 * reserved devices when they are all offered and the first side got what was reserved, else the
 * devices nearest what the first side got. Never fails a call. Allocate calls are reported through
 * {@link #allocated} so that the second side follows what the kubelet actually allocated, and so
 * that finished reservations are dropped.
 */
public final class JointPolicy implements PreferredPolicy {

  private static final Logger LOG = LoggerFactory.getLogger(JointPolicy.class);

  private final Inventory inventory;
  private final Supplier<List<String>> healthyHcas;
  private final Supplier<List<String>> healthyGpus;
  private final String gpuResource;
  private final JointChooser chooser;
  private final PendingPodLocator locator;
  private final Reservations state;
  private final PreferredOutcome.Listener outcomes;

  /**
   * @param healthyHcas the HCA device ids healthy now
   * @param healthyGpus the GPU ids healthy now
   * @param ttl how long a reservation waits for its second resource
   * @param outcomes told what guided each answer: the plan, the GPUs the first side got (an HCA
   *     second side), else a fallback
   */
  public JointPolicy(
      Inventory inventory,
      Supplier<List<String>> healthyHcas,
      Supplier<List<String>> healthyGpus,
      String gpuResource,
      PendingPodLocator locator,
      Clock clock,
      Duration ttl,
      PreferredOutcome.Listener outcomes) {
    this.outcomes = outcomes;
    this.inventory = inventory;
    this.healthyHcas = healthyHcas;
    this.healthyGpus = healthyGpus;
    this.gpuResource = gpuResource;
    this.chooser = new JointChooser(inventory);
    this.locator = locator;
    this.state = new Reservations(clock, ttl);
  }

  /** Live reservations (for tests and the log). */
  public int reservations() {
    return state.size();
  }

  @Override
  public Future<List<String>> choose(PreferredRequest c) {
    Side side = c.side();
    int size = c.size();
    // the kubelet finishes a resource (Allocate included) before it starts the next: a reservation
    // whose first side was never allocated belongs to an admission that did not go on
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
    return locator
        .locate(side, size)
        .recover(
            e ->
                Future.succeededFuture(
                    PendingPod.unknown(
                        side,
                        size,
                        "pod lookup failed: " + e.getMessage(),
                        Holdings.unavailable(e.toString()))))
        .map(match -> first(side, c, match));
  }

  private List<String> second(Side side, PreferredRequest c, Reservation r) {
    synchronized (state) {
      int size = c.size();
      List<String> offered = c.available();
      List<String> reserved = r.reserved(side);
      boolean exact =
          r.firstAsReserved() && reserved.size() == size && offered(side, reserved, offered);
      List<String> ids =
          side == Side.GPU
              ? chooser.gpus(
                  offered, c.mustInclude(), size, exact ? reserved : List.of(), r.firstDevices())
              : chooser.hcas(
                  offered, c.mustInclude(), size, exact ? reserved : List.of(), r.firstDevices());
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
      outcomes.decided(
          side,
          exact
              ? r.outcome
              : side == Side.HCA ? PreferredOutcome.FOLLOWED_GPUS : PreferredOutcome.FALLBACK);
      return ids;
    }
  }

  private List<String> first(Side side, PreferredRequest c, PendingPod m) {
    synchronized (state) {
      int size = c.size();
      List<String> offered = c.available();
      Choice choice = decide(side, offered, m);
      List<String> ids =
          side == Side.GPU
              ? chooser.gpus(offered, c.mustInclude(), size, choice.gpus, choice.hcas)
              : chooser.hcas(offered, c.mustInclude(), size, choice.hcas, choice.gpus);
      int otherSize = side == Side.GPU ? m.hcas() : m.gpus();
      if (otherSize != 0) {
        Reservation r =
            new Reservation(
                m.key(),
                side,
                choice.gpus,
                choice.hcas,
                size,
                otherSize,
                state.now(),
                choice.why,
                choice.outcome);
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
      outcomes.decided(side, choice.outcome);
      return ids;
    }
  }

  private record Choice(
      List<String> gpus, List<String> hcas, String why, PreferredOutcome outcome) {}

  private Choice decide(Side side, List<String> offered, PendingPod m) {
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
        return new Choice(
            planGpus,
            planHcas,
            "following the plan of " + m.pod().key(),
            PreferredOutcome.FOLLOWED_PLAN);
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
    return a.map(x -> new Choice(x.gpuIds(), x.hcaIds(), why, PreferredOutcome.FALLBACK))
        .orElse(
            new Choice(
                List.of(),
                List.of(),
                "allocator found no joint set; kubelet order",
                PreferredOutcome.FALLBACK));
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
  private Map<String, Integer> freeOther(Side side, PendingPod m) {
    Set<String> held = new HashSet<>();
    String resource = side == Side.GPU ? gpuResource : inventory.config().resourceName();
    m.held().all().stream()
        .filter(h -> h.resource().equals(resource))
        .forEach(h -> held.addAll(h.deviceIds()));
    List<String> ids = side == Side.GPU ? healthyGpus.get() : healthyHcas.get();
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

  /**
   * Records what the kubelet allocated to one container; a reservation with both sides allocated is
   * dropped.
   */
  @Override
  public void allocated(Side side, List<String> deviceIds) {
    List<String> ids = topologyIds(side, deviceIds);
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
