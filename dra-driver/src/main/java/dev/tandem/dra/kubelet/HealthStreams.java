package dev.tandem.dra.kubelet;

import dev.tandem.dra.health.DeviceCondition;
import dev.tandem.dra.health.HealthFeed;
import dev.tandem.dra.health.PoolHealth;
import dev.tandem.kubelet.drahealth.v1.DRAResourceHealthGrpcService;
import dev.tandem.kubelet.drahealth.v1.DeviceHealth;
import dev.tandem.kubelet.drahealth.v1.DeviceIdentifier;
import dev.tandem.kubelet.drahealth.v1.HealthStatus;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesRequest;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesResponse;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA health service v1 ({@code /v1.DRAResourceHealth/NodeWatchResources}) on the DRA socket:
 * each call is a stream that carries the health of every device of the pool at once, then again
 * each time the driver determines it ({@link HealthFeed}), until the kubelet cancels the call or
 * the connection ends. Writes happen on the call's own context.
 */
final class HealthStreams {

  private static final Logger LOG = LoggerFactory.getLogger(HealthStreams.class);

  private HealthStreams() {}

  static void bind(GrpcServer grpc, HealthFeed feed) {
    grpc.callHandler(
        DRAResourceHealthGrpcService.NodeWatchResources,
        call -> call.handler(request -> watch(call, feed)));
  }

  private static void watch(
      GrpcServerRequest<NodeWatchResourcesRequest, NodeWatchResourcesResponse> call,
      HealthFeed feed) {
    Context context = Vertx.currentContext();
    GrpcServerResponse<NodeWatchResourcesRequest, NodeWatchResourcesResponse> response =
        call.response();
    AtomicBoolean open = new AtomicBoolean(true);
    Runnable[] unsubscribe = new Runnable[1];
    Runnable close =
        () -> {
          if (open.compareAndSet(true, false)) {
            unsubscribe[0].run();
            LOG.info("kubelet health stream closed ({} open)", feed.subscribers());
          }
        };
    call.errorHandler(e -> close.run());
    call.exceptionHandler(e -> close.run());
    response.exceptionHandler(e -> close.run());
    unsubscribe[0] =
        feed.subscribe(
            health ->
                context.runOnContext(
                    v -> {
                      if (open.get()) {
                        response.write(message(health)).onFailure(e -> close.run());
                      }
                    }));
    LOG.info("kubelet health stream opened ({} open)", feed.subscribers());
  }

  /** The complete list, as the proto says each response must be. */
  static NodeWatchResourcesResponse message(PoolHealth health) {
    NodeWatchResourcesResponse.Builder out = NodeWatchResourcesResponse.newBuilder();
    for (DeviceCondition d : health.devices()) {
      out.addDevices(
          DeviceHealth.newBuilder()
              .setDevice(
                  DeviceIdentifier.newBuilder()
                      .setPoolName(d.pool())
                      .setDeviceName(d.device())
                      .build())
              .setHealth(status(d.health()))
              .setLastUpdatedTime(health.determined().getEpochSecond())
              .setHealthCheckTimeoutSeconds(health.trustFor().toSeconds())
              .setMessage(d.message())
              .build());
    }
    return out.build();
  }

  private static HealthStatus status(DeviceCondition.Health s) {
    return switch (s) {
      case HEALTHY -> HealthStatus.HEALTHY;
      case UNHEALTHY -> HealthStatus.UNHEALTHY;
      case UNKNOWN -> HealthStatus.UNKNOWN;
    };
  }
}
