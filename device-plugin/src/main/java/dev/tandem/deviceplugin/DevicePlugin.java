package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.allocate.DeviceHandOff;
import dev.tandem.deviceplugin.cni.DeviceInfoHandOff;
import dev.tandem.deviceplugin.config.GpuConfig;
import dev.tandem.deviceplugin.config.Mode;
import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.ops.PluginMetrics;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.PodHcas;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.deviceplugin.preferred.PreferredOutcome;
import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.deviceplugin.preferred.hint.HintPolicy;
import dev.tandem.deviceplugin.preferred.joint.JointPolicy;
import dev.tandem.deviceplugin.resource.DeviceTable;
import dev.tandem.deviceplugin.resource.GpuDevices;
import dev.tandem.deviceplugin.resource.HcaDevices;
import dev.tandem.deviceplugin.resource.ResourcePlugin;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.kit.ops.OpsServer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's device plugin: {@code rdma/hca} with hint-mode preferred allocations; in joint mode
 * ({@code "gpu": {"enabled": true}}) also {@code nvidia.com/gpu} on its own socket, both resources
 * answering GetPreferredAllocation from one {@link JointPolicy}. One {@link ResourcePlugin} per
 * resource; they share the kubelet registration client. Its ops listener ({@link #listenOps})
 * serves {@code /healthz}, {@code /readyz} (ready once every resource is registered) and {@code
 * /metrics} ({@link PluginMetrics}). With a Device Information directory, Allocate of {@code
 * rdma/hca} also hands the granted devices to CNI plugins ({@link DeviceInfoHandOff}).
 */
public final class DevicePlugin {

  private static final Logger LOG = LoggerFactory.getLogger(DevicePlugin.class);

  private final Vertx vertx;
  private final PluginWiring wiring;
  private final Inventory inventory;
  private final KubeletRegistration registration;
  private final ResourcePlugin hca;
  private final ResourcePlugin gpu;
  private final GpuDevices gpuDevices;
  private final JointPolicy joint;
  private final PluginMetrics metrics;
  private final DeviceInfoHandOff deviceInfo;
  private OpsServer ops;

  public DevicePlugin(Vertx vertx, PluginWiring s) {
    this(vertx, s, new PluginMetrics());
  }

  /** A plugin counting into {@code metrics}. */
  public DevicePlugin(Vertx vertx, PluginWiring s, PluginMetrics metrics) {
    this.vertx = vertx;
    this.wiring = s;
    this.metrics = metrics;
    this.inventory = Inventory.of(s.machine(), s.config());
    this.registration = new KubeletRegistration(vertx, s.kubeletSocket(), 10_000);
    this.deviceInfo = deviceInfo(vertx, s, inventory);
    DeviceHandOff hcaHandOff = deviceInfo == null ? DeviceHandOff.NONE : deviceInfo;
    GpuConfig g = s.config().gpu();
    PodHcas podHcas = new PodHcas(s.clock());
    DeviceTable hcas =
        new DeviceTable(
            new HcaDevices(
                inventory,
                s.probe(),
                new UverbsLocator(s.sysfsRoot()),
                s.config().mode() == Mode.SHARED ? podHcas : null,
                s.rescan()));
    PendingPodLocator locator =
        new PendingPodLocator(
            s.machine().nodeName(),
            s.config().resourceName(),
            g.resourceName(),
            s.plans(),
            s.podResources(),
            s.lookupTimeoutMs());
    if (g.enabled()) {
      this.gpuDevices =
          GpuDevices.onHost(s.machine(), g.resourceName(), s.sysfsRoot(), g.cdi(), s.nvmlLibrary());
      DeviceTable gpus = new DeviceTable(gpuDevices);
      this.joint =
          new JointPolicy(
              inventory,
              hcas::healthyIds,
              gpus::healthyIds,
              g.resourceName(),
              locator,
              s.clock(),
              g.reservation(),
              (side, o) ->
                  metrics.preferredAnswered(
                      side == Side.GPU ? g.resourceName() : s.config().resourceName(), o.label()));
      this.gpu = resource(gpus, Side.GPU, joint, DeviceHandOff.NONE, s.gpuSocket());
      this.hca = resource(hcas, Side.HCA, joint, hcaHandOff, s.pluginSocket());
    } else {
      this.gpuDevices = null;
      this.joint = null;
      this.gpu = null;
      PreferredOutcome.Listener outcomes =
          (side, o) -> metrics.preferredAnswered(s.config().resourceName(), o.label());
      this.hca =
          resource(
              hcas,
              Side.HCA,
              new HintPolicy(inventory, locator, outcomes, podHcas),
              hcaHandOff,
              s.pluginSocket());
    }
  }

  /** The CNI hand-off, when a directory is set; null otherwise. */
  private static DeviceInfoHandOff deviceInfo(Vertx vertx, PluginWiring s, Inventory inventory) {
    if (s.deviceInfoDir() == null) {
      return null;
    }
    PodResourcesSource podResources =
        s.podResources() != null
            ? s.podResources()
            : () -> Future.failedFuture("the PodResources lookup is off");
    return new DeviceInfoHandOff(vertx, inventory, s.deviceInfoDir(), podResources, s.clock());
  }

  private ResourcePlugin resource(
      DeviceTable table, Side side, PreferredPolicy preferred, DeviceHandOff handOff, Path socket) {
    return new ResourcePlugin(
        vertx,
        table,
        side,
        preferred,
        handOff,
        socket,
        registration,
        wiring.backoff(),
        wiring.config().healthInterval(),
        metrics,
        wiring.clock());
  }

  /** The HCAs and devices offered as {@code rdma/hca}. */
  public Inventory inventory() {
    return inventory;
  }

  public ResourcePlugin hca() {
    return hca;
  }

  /** The GPU resource of joint mode; null when joint mode is off. */
  public ResourcePlugin gpu() {
    return gpu;
  }

  /** The joint policy; null when joint mode is off. */
  public JointPolicy joint() {
    return joint;
  }

  /** Why NVML is or is not used in joint mode, e.g. the library is missing; null otherwise. */
  public String nvmlNote() {
    return gpuDevices == null ? null : gpuDevices.nvmlNote();
  }

  public PluginMetrics metrics() {
    return metrics;
  }

  /** The resources served: {@code rdma/hca}, and in joint mode the GPUs first. */
  private List<ResourcePlugin> served() {
    return gpu == null ? List.of(hca) : List.of(gpu, hca);
  }

  /** Why the plugin is not ready: a resource not registered with the kubelet; empty when ready. */
  public Optional<String> notReady() {
    List<String> why = new ArrayList<>();
    for (ResourcePlugin r : served()) {
      r.lifecycle().notRegistered().ifPresent(w -> why.add(r.resourceName() + ": " + w));
    }
    return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
  }

  /**
   * Serves {@code /healthz}, {@code /readyz} and {@code /metrics} on {@code port} (all interfaces;
   * 0 picks one); completes with the bound port.
   */
  public Future<Integer> listenOps(int port) {
    ops = new OpsServer(vertx, metrics.registry(), this::health, this::notReady);
    return ops.listen(port);
  }

  private JsonObject health() {
    JsonObject registered = new JsonObject();
    served()
        .forEach(r -> registered.put(r.resourceName(), r.lifecycle().notRegistered().isEmpty()));
    return new JsonObject().put("registered", registered);
  }

  /**
   * Prepares the Device Information directory (fails naming it when it cannot be written), reads
   * health once, then serves and registers (returns before registration completes).
   */
  public Future<Void> start() {
    return prepareDeviceInfo().compose(v -> startGpu()).compose(v -> hca.start());
  }

  private Future<Void> prepareDeviceInfo() {
    if (deviceInfo == null) {
      return Future.succeededFuture();
    }
    return vertx
        .<Void>executeBlocking(
            () -> {
              deviceInfo.prepare();
              return null;
            },
            false)
        .onSuccess(
            v -> {
              LOG.info(
                  "Device Information files for CNI plugins in {}, checked against PodResources"
                      + " every {} s",
                  deviceInfo.path(),
                  wiring.deviceInfoInterval().toSeconds());
              deviceInfo.every(wiring.deviceInfoInterval());
            });
  }

  private Future<Void> startGpu() {
    if (gpu == null) {
      return Future.succeededFuture();
    }
    LOG.info(
        "joint mode: serving {} GPUs as {} on {}; {}",
        gpu.table().ids().size(),
        gpu.resourceName(),
        wiring.gpuSocket().getFileName(),
        nvmlNote());
    return gpu.start();
  }

  private Future<Void> closeGpuProbes() {
    return vertx.executeBlocking(
        () -> {
          gpuDevices.close();
          return null;
        },
        false);
  }

  /** Completes when registration attempts of either resource are exhausted. */
  public Future<Void> failed() {
    if (gpu == null) {
      return hca.lifecycle().failed();
    }
    Promise<Void> either = Promise.promise();
    hca.lifecycle().failed().onFailure(either::tryFail);
    gpu.lifecycle().failed().onFailure(either::tryFail);
    return either.future();
  }

  /**
   * Stops health checks and the servers (the ops listener too); removes the sockets and the Device
   * Information files; shuts joint mode's NVML session down.
   */
  public Future<Void> stop() {
    Future<Void> gpuStopped =
        gpu == null ? Future.succeededFuture() : gpu.stop().eventually(this::closeGpuProbes);
    Future<Void> opsClosed = ops == null ? Future.succeededFuture() : ops.close();
    Future<Void> filesRemoved = deviceInfo == null ? Future.succeededFuture() : deviceInfo.stop();
    return Future.join(hca.stop(), gpuStopped, opsClosed, filesRemoved)
        .<Void>mapEmpty()
        .eventually(registration::close);
  }
}
