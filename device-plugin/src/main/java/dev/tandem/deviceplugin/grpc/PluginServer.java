package dev.tandem.deviceplugin.grpc;

import dev.tandem.deviceplugin.allocate.AllocationException;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginGrpcService;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's gRPC server ({@code v1beta1.DevicePlugin}) on a Unix socket. ListAndWatch streams
 * stay open until the server stops; each health change is sent to them as the full list. When a
 * stream ends while the server is running, {@code onStreamLost} runs (the kubelet never re-opens
 * it: the plugin must register again).
 */
public final class PluginServer {

  private static final Logger LOG = LoggerFactory.getLogger(PluginServer.class);
  public static final DevicePluginOptions OPTIONS =
      DevicePluginOptions.newBuilder()
          .setPreStartRequired(false)
          .setGetPreferredAllocationAvailable(true)
          .build();

  private final Vertx vertx;
  private final Path socket;
  private final ServedResource resource;
  private final Runnable onStreamLost;
  private final Set<GrpcServerResponse<?, ListAndWatchResponse>> streams =
      ConcurrentHashMap.newKeySet();
  private HttpServer http;
  private Runnable unsubscribe = () -> {};
  private volatile boolean stopping;

  public PluginServer(Vertx vertx, Path socket, ServedResource resource, Runnable onStreamLost) {
    this.vertx = vertx;
    this.socket = socket;
    this.resource = resource;
    this.onStreamLost = onStreamLost;
  }

  public Path socket() {
    return socket;
  }

  /** Deletes a stale socket file, then listens. */
  public Future<Void> start() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(
        DevicePluginGrpcService.GetDevicePluginOptions,
        req -> req.handler(m -> req.response().end(OPTIONS)));
    grpc.callHandler(DevicePluginGrpcService.ListAndWatch, req -> req.handler(m -> watch(req)));
    grpc.callHandler(
        DevicePluginGrpcService.GetPreferredAllocation,
        req ->
            req.handler(
                m ->
                    resource
                        .preferred(m)
                        .onSuccess(r -> req.response().end(r))
                        .onFailure(e -> fail(req.response(), GrpcStatus.INTERNAL, e))));
    grpc.callHandler(
        DevicePluginGrpcService.Allocate,
        req ->
            req.handler(
                m ->
                    resource
                        .allocate(m)
                        .onSuccess(r -> req.response().end(r))
                        .onFailure(e -> allocateFailed(req.response(), e))));
    grpc.callHandler(
        DevicePluginGrpcService.PreStartContainer,
        req ->
            req.handler(m -> req.response().end(PreStartContainerResponse.getDefaultInstance())));
    unsubscribe = resource.onChange(this::broadcast);
    return vertx
        .executeBlocking(() -> Files.deleteIfExists(socket), false)
        .compose(
            v ->
                vertx
                    .createHttpServer(new HttpServerOptions())
                    .requestHandler(grpc)
                    .listen(SocketAddress.domainSocketAddress(socket.toAbsolutePath().toString())))
        .map(
            s -> {
              http = s;
              return null;
            });
  }

  /** Ends the streams, closes the server and removes the socket file. */
  public Future<Void> stop() {
    stopping = true;
    unsubscribe.run();
    streams.forEach(PluginServer::endQuietly);
    streams.clear();
    Future<Void> closed = http == null ? Future.succeededFuture() : http.close();
    return closed
        .recover(e -> Future.succeededFuture())
        .compose(v -> vertx.executeBlocking(() -> Files.deleteIfExists(socket), false))
        .mapEmpty();
  }

  private void watch(GrpcServerRequest<?, ListAndWatchResponse> req) {
    GrpcServerResponse<?, ListAndWatchResponse> response = req.response();
    streams.add(response);
    Runnable lost =
        () -> {
          if (streams.remove(response) && !stopping) {
            LOG.info("kubelet closed the ListAndWatch stream of {}", socket.getFileName());
            onStreamLost.run();
          }
        };
    req.errorHandler(e -> lost.run());
    req.exceptionHandler(e -> lost.run());
    response.exceptionHandler(e -> lost.run());
    req.connection().closeHandler(v -> lost.run());
    response.write(resource.list());
  }

  private static void endQuietly(GrpcServerResponse<?, ListAndWatchResponse> stream) {
    try {
      stream.end();
    } catch (IllegalStateException alreadyFailed) {
      // the peer reset the stream; nothing to end
    }
  }

  private void broadcast(ListAndWatchResponse list) {
    vertx.runOnContext(
        v ->
            streams.forEach(
                s -> {
                  try {
                    s.write(list);
                  } catch (IllegalStateException e) {
                    LOG.debug("stream already failed: {}", e.getMessage());
                  }
                }));
  }

  /** A refused request is the kubelet's INVALID_ARGUMENT; a failed hand-off is INTERNAL. */
  private void allocateFailed(GrpcServerResponse<?, ?> response, Throwable e) {
    boolean refused = e instanceof AllocationException;
    LOG.warn(
        "Allocate of {} {}: {}",
        resource.resourceName(),
        refused ? "refused" : "failed",
        e.getMessage());
    fail(response, refused ? GrpcStatus.INVALID_ARGUMENT : GrpcStatus.INTERNAL, e);
  }

  private static void fail(GrpcServerResponse<?, ?> response, GrpcStatus status, Throwable e) {
    response
        .status(status)
        .statusMessage(e.getMessage() == null ? e.toString() : e.getMessage())
        .end();
  }
}
