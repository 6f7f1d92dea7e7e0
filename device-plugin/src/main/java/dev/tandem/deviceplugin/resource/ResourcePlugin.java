package dev.tandem.deviceplugin.resource;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import dev.tandem.deviceplugin.allocate.DeviceHandOff;
import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.grpc.ServedResource;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.ops.PluginMetrics;
import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One extended resource served to the kubelet ({@code rdma/hca}, and in joint mode {@code
 * nvidia.com/gpu}) on its own socket: its device table, kept by a periodic health check; its gRPC
 * server and registration with the kubelet, again after each kubelet restart ({@link
 * PluginLifecycle}); Allocate from its {@link ResourceDevices}, answered once its {@link
 * DeviceHandOff} is done; GetPreferredAllocation from a {@link PreferredPolicy}, its messages
 * mapped to the policy's domain types by {@link PreferredWire}, which also tells the policy what
 * each Allocate gave out.
 */
public final class ResourcePlugin implements ServedResource {

  private final Vertx vertx;
  private final DeviceTable table;
  private final HealthCheck health;
  private volatile AllocateResponder allocate;
  private volatile long allocateGeneration;
  private final Side side;
  private final PreferredPolicy preferred;
  private final DeviceHandOff handOff;
  private final Duration healthInterval;
  private final PluginLifecycle lifecycle;
  private final PluginMetrics metrics;
  private long healthTimer = -1;

  /**
   * @param side which of the two resources this is, as the policy knows them
   * @param preferred chooses the devices of GetPreferredAllocation, and is told what each Allocate
   *     gave out (joint mode records it)
   * @param handOff what is done for the granted devices before Allocate answers
   * @param socket this resource's socket in the kubelet's plugin directory
   * @param metrics where its registrations, health transitions and Allocate errors are counted
   * @param clock the time of its lifecycle: restart storms, waiting for the kubelet
   */
  public ResourcePlugin(
      Vertx vertx,
      DeviceTable table,
      Side side,
      PreferredPolicy preferred,
      DeviceHandOff handOff,
      Path socket,
      KubeletRegistration registration,
      Backoff backoff,
      Duration healthInterval,
      PluginMetrics metrics,
      Clock clock) {
    this.vertx = vertx;
    this.table = table;
    this.metrics = metrics;
    metrics.serving(resourceName());
    this.health =
        new HealthCheck(
            vertx, table, (key, healthy) -> metrics.healthChanged(resourceName(), key, healthy));
    this.allocate = table.devices().allocateResponder();
    this.side = side;
    this.preferred = preferred;
    this.handOff = handOff;
    this.healthInterval = healthInterval;
    this.lifecycle =
        new PluginLifecycle(vertx, socket, registration, this, backoff, metrics, clock);
  }

  public DeviceTable table() {
    return table;
  }

  public PluginLifecycle lifecycle() {
    return lifecycle;
  }

  /** Reads health once, then serves and registers (returns before registration completes). */
  public Future<Void> start() {
    return health
        .run()
        .map(
            changed -> {
              healthTimer = health.every(healthInterval.toMillis());
              lifecycle.start();
              return null;
            });
  }

  /** Stops the health checks and the server; removes the socket. */
  public Future<Void> stop() {
    vertx.cancelTimer(healthTimer);
    return lifecycle.stop();
  }

  @Override
  public String resourceName() {
    return table.devices().resourceName();
  }

  @Override
  public ListAndWatchResponse list() {
    return table.list();
  }

  @Override
  public Runnable onChange(Consumer<ListAndWatchResponse> listener) {
    return table.onChange(listener);
  }

  @Override
  public Future<PreferredAllocationResponse> preferred(PreferredAllocationRequest request) {
    return PreferredWire.answer(preferred, side, request, Set.copyOf(table.ids()));
  }

  @Override
  public Future<AllocateResponse> allocate(AllocateRequest request) {
    AllocateResponse r;
    try {
      r = responder().allocate(request);
    } catch (RuntimeException e) {
      metrics.allocateFailed(resourceName());
      return Future.failedFuture(e);
    }
    List<String> ids =
        request.getContainerRequestsList().stream()
            .flatMap(c -> c.getDevicesIdsList().stream())
            .toList();
    return handOff
        .granted(ids)
        .map(
            v -> {
              PreferredWire.allocated(preferred, side, request);
              return r;
            })
        .onFailure(e -> metrics.allocateFailed(resourceName()));
  }

  /** The Allocate responder for the devices offered now (rebuilt after a rescan changed them). */
  private AllocateResponder responder() {
    long g = table.generation();
    if (g != allocateGeneration) {
      allocate = table.devices().allocateResponder();
      allocateGeneration = g;
    }
    return allocate;
  }

  @Override
  public String describe() {
    return table.ids().size()
        + " "
        + table.devices().noun()
        + ", "
        + table.healthyIds().size()
        + " healthy";
  }
}
