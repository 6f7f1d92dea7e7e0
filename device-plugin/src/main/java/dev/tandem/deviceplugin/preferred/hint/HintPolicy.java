package dev.tandem.deviceplugin.preferred.hint;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.preferred.HcaChooser;
import dev.tandem.deviceplugin.preferred.Holdings;
import dev.tandem.deviceplugin.preferred.InventoryAllocator;
import dev.tandem.deviceplugin.preferred.PendingPod;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.PlannedPod;
import dev.tandem.deviceplugin.preferred.PodHcas;
import dev.tandem.deviceplugin.preferred.PreferredOutcome;
import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.request.ContainerShare;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hint mode ({@code rdma/hca} only; NVIDIA's plugin serves the GPUs): the HCAs nearest the GPUs the
 * container already holds (PodResources), else its plan's HCAs, else the allocator's best (see
 * {@link Hint}). Logs which hint was used and why.
 */
public final class HintPolicy implements PreferredPolicy {

  private static final Logger LOG = LoggerFactory.getLogger(HintPolicy.class);

  private final PendingPodLocator locator;
  private final HcaChooser chooser;
  private final Inventory inventory;
  private final PreferredOutcome.Listener outcomes;
  private final PodHcas podHcas;

  public HintPolicy(Inventory inventory, PendingPodLocator locator) {
    this(inventory, locator, PreferredOutcome.Listener.NONE, new PodHcas(Clock.systemUTC()));
  }

  /**
   * @param outcomes told what guided each answer
   * @param podHcas told, for the ids chosen for a pod's container, the HCAs of the pod's plan
   */
  public HintPolicy(
      Inventory inventory,
      PendingPodLocator locator,
      PreferredOutcome.Listener outcomes,
      PodHcas podHcas) {
    this.locator = locator;
    this.outcomes = outcomes;
    this.podHcas = podHcas;
    this.chooser = new HcaChooser(new InventoryAllocator(inventory));
    this.inventory = inventory;
  }

  /**
   * HCA requests only: hint mode serves {@code rdma/hca}; any other is answered in kubelet order.
   */
  @Override
  public Future<List<String>> choose(PreferredRequest request) {
    if (request.side() != Side.HCA) {
      return Future.succeededFuture(request.kubeletOrder());
    }
    int size = request.size();
    return locator
        .locate(Side.HCA, size, !request.mustInclude().isEmpty())
        .recover(
            e ->
                Future.succeededFuture(
                    PendingPod.unknown(
                        Side.HCA, size, "hint lookup failed: " + e, Holdings.unavailable(""))))
        .map(
            found -> {
              Hint hint = hint(found);
              List<String> chosen =
                  chooser.choose(
                      request.available(), request.mustInclude(), size, hint.gpus(), hint.hcas());
              LOG.info(
                  "preferred {} of {} available: {} (hint {}: {})",
                  size,
                  request.available().size(),
                  chosen,
                  hint.source().name().toLowerCase(),
                  hint.why());
              outcomes.decided(Side.HCA, outcome(hint.source()));
              if (found.pod() != null) {
                podHcas.steered(found.pod().key(), ibDevices(found.pod().plan().hcas()), chosen);
              }
              return chosen;
            });
  }

  private static PreferredOutcome outcome(Hint.Source source) {
    return switch (source) {
      case GPUS -> PreferredOutcome.FOLLOWED_GPUS;
      case PLAN -> PreferredOutcome.FOLLOWED_PLAN;
      case NONE -> PreferredOutcome.FALLBACK;
    };
  }

  private Hint hint(PendingPod found) {
    PlannedPod p = found.pod();
    if (p == null) {
      return Hint.none(found.why());
    }
    if (found.held().unavailable() != null) {
      return Hint.plan(
          plannedHcas(p, found.container()),
          "pod "
              + p.key()
              + ": following its plan; PodResources unavailable ("
              + found.held().unavailable()
              + ")");
    }
    String container = found.container();
    List<String> planned = plannedHcas(p, container);
    List<String> gpus = gpusOf(found.held(), p, container);
    if (gpus.isEmpty()) {
      return Hint.plan(
          planned,
          "pod "
              + p.key()
              + ": container "
              + container
              + " holds no GPUs yet; following its plan "
              + planned);
    }
    return Hint.gpus(
        gpus, planned, "pod " + p.key() + ": container " + container + " holds " + gpus);
  }

  /** The container's share of the plan's HCAs; the whole plan's for a plan without shares. */
  private static List<String> plannedHcas(PlannedPod p, String container) {
    return p.plan().container(container).map(ContainerShare::hcas).orElse(p.plan().hcas());
  }

  /** The plan's HCAs as ibverbs names, each once, in plan order. */
  private List<String> ibDevices(List<String> hcas) {
    DeviceIds ids = inventory.ids();
    return hcas.stream()
        .flatMap(id -> ids.device(id).filter(d -> d.kind() == DeviceKind.HCA).stream())
        .map(d -> d.hca().ibDevice())
        .distinct()
        .toList();
  }

  private List<String> gpusOf(Holdings held, PlannedPod p, String container) {
    DeviceIds ids = inventory.ids();
    return held.all().stream()
        .filter(
            h ->
                h.namespace().equals(p.namespace())
                    && h.pod().equals(p.name())
                    && h.container().equals(container))
        .flatMap(h -> h.deviceIds().stream())
        .flatMap(id -> ids.device(id).filter(d -> d.kind() == DeviceKind.GPU).stream())
        .map(Device::id)
        .distinct()
        .sorted()
        .toList();
  }
}
