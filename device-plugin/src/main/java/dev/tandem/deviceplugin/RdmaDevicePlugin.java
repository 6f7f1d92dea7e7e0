package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.inventory.DeviceTable;
import dev.tandem.deviceplugin.inventory.HealthCheck;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.UverbsLocator;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.preferred.HintFinder;
import dev.tandem.deviceplugin.preferred.PreferredAllocations;
import dev.tandem.deviceplugin.preferred.PreferredChooser;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/** The device plugin assembled: device table, health checks, gRPC server, kubelet lifecycle. */
public final class RdmaDevicePlugin {

  private final Vertx vertx;
  private final PluginSettings settings;
  private final DeviceTable table;
  private final HealthCheck health;
  private final KubeletRegistration registration;
  private final PluginLifecycle lifecycle;
  private long healthTimer = -1;

  public RdmaDevicePlugin(Vertx vertx, PluginSettings s) {
    this.vertx = vertx;
    this.settings = s;
    this.table = new DeviceTable(Inventory.of(s.machine(), s.config()));
    this.health = new HealthCheck(vertx, table, s.probe(), new UverbsLocator(s.sysfsRoot()));
    this.registration = new KubeletRegistration(vertx, s.kubeletSocket(), 10_000);
    HintFinder hints = new HintFinder(s.machine(), s.config().resourceName(), s.plans(), s.podResources(),
        s.lookupTimeoutMs());
    PreferredAllocations preferred = new PreferredAllocations(hints, new PreferredChooser(table.inventory()));
    this.lifecycle = new PluginLifecycle(vertx, s.pluginSocket(), registration, table, preferred, s.backoff());
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

  /** Reads health once, then serves and registers (returns before registration completes). */
  public Future<Void> start() {
    return health.run().map(changed -> {
      healthTimer = health.every(settings.config().healthInterval().toMillis());
      lifecycle.start();
      return null;
    });
  }

  /** Stops health checks and the server; removes the socket. */
  public Future<Void> stop() {
    vertx.cancelTimer(healthTimer);
    return lifecycle.stop().eventually(registration::close);
  }
}
