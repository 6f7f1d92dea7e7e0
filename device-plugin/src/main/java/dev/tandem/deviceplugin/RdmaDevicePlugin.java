package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.grpc.TableResource;
import dev.tandem.deviceplugin.inventory.DeviceTable;
import dev.tandem.deviceplugin.inventory.HealthCheck;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.UverbsLocator;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.deviceplugin.preferred.hint.HintPolicy;
import dev.tandem.deviceplugin.preferred.joint.JointPolicy;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * The device plugin assembled: device table, health checks, gRPC server, kubelet lifecycle; in
 * joint mode ({@code "gpu": {"enabled": true}}) also the {@code nvidia.com/gpu} plugin on its own
 * socket, both answering GetPreferredAllocation from one {@link JointPolicy}.
 */
public final class RdmaDevicePlugin {

  private final Vertx vertx;
  private final PluginSettings settings;
  private final DeviceTable table;
  private final HealthCheck health;
  private final KubeletRegistration registration;
  private final PluginLifecycle lifecycle;
  private final GpuPlugin gpu;
  private long healthTimer = -1;

  public RdmaDevicePlugin(Vertx vertx, PluginSettings s) {
    this.vertx = vertx;
    this.settings = s;
    this.table = new DeviceTable(Inventory.of(s.machine(), s.config()));
    this.health = new HealthCheck(vertx, table, s.probe(), new UverbsLocator(s.sysfsRoot()));
    this.registration = new KubeletRegistration(vertx, s.kubeletSocket(), 10_000);
    AllocateResponder allocate = new AllocateResponder(table);
    String name = s.config().resourceName();
    TableResource resource;
    if (s.config().gpu().enabled()) {
      this.gpu = new GpuPlugin(vertx, s, table, registration);
      JointPolicy joint = gpu.joint();
      resource =
          new TableResource(
              name,
              "devices",
              table,
              allocate::allocate,
              joint.side(Side.HCA)::answer,
              r -> joint.allocated(Side.HCA, r));
    } else {
      this.gpu = null;
      PendingPodLocator locator =
          new PendingPodLocator(
              s.machine().nodeName(),
              s.config().resourceName(),
              s.config().gpu().resourceName(),
              s.plans(),
              s.podResources(),
              s.lookupTimeoutMs());
      HintPolicy preferred = new HintPolicy(table.inventory(), locator);
      resource =
          new TableResource(name, "devices", table, allocate::allocate, preferred::answer, r -> {});
    }
    this.lifecycle =
        new PluginLifecycle(vertx, s.pluginSocket(), registration, resource, s.backoff());
  }

  public DeviceTable table() {
    return table;
  }

  public HealthCheck health() {
    return health;
  }

  public PluginLifecycle lifecycle() {
    return lifecycle;
  }

  /** The GPU half of joint mode; null when joint mode is off. */
  public GpuPlugin gpu() {
    return gpu;
  }

  /** Reads health once, then serves and registers (returns before registration completes). */
  public Future<Void> start() {
    Future<Void> gpuStarted = gpu == null ? Future.succeededFuture() : gpu.start();
    return gpuStarted
        .compose(v -> health.run())
        .map(
            changed -> {
              healthTimer = health.every(settings.config().healthInterval().toMillis());
              lifecycle.start();
              return null;
            });
  }

  /** Completes when registration attempts of either resource are exhausted. */
  public Future<Void> failed() {
    if (gpu == null) {
      return lifecycle.failed();
    }
    Promise<Void> either = Promise.promise();
    lifecycle.failed().onFailure(either::tryFail);
    gpu.lifecycle().failed().onFailure(either::tryFail);
    return either.future();
  }

  /** Stops health checks and the servers; removes the sockets. */
  public Future<Void> stop() {
    vertx.cancelTimer(healthTimer);
    Future<Void> gpuStopped = gpu == null ? Future.succeededFuture() : gpu.stop();
    return Future.join(lifecycle.stop(), gpuStopped)
        .<Void>mapEmpty()
        .eventually(registration::close);
  }
}
