package dev.tandem.deviceplugin.grpc;

import dev.tandem.deviceplugin.allocate.AllocationException;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginGrpcService;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreStartContainerResponse;
import dev.tandem.kubelet.serve.UnixSocketServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import io.vertx.grpc.server.GrpcServerRequest;
import io.vertx.grpc.server.GrpcServerResponse;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's gRPC server ({@code v1beta1.DevicePlugin}) on a Unix socket. ListAndWatch streams
 * stay open until the server stops; each health change is sent to them as the full list. When a
 * stream ends while the server is running, {@code onStreamLost} runs (the kubelet never re-opens
 * it: the plugin must register again).
 *
 * <p>The server owns only the socket file it created ({@link UnixSocketServer}): another plugin
 * process serving the same endpoint (the new pod of a rolling update) replaces that file, and when
 * this server stops afterwards it must leave the other's socket alone, or the kubelet can no longer
 * reach the plugin that stays.
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
  private volatile UnixSocketServer server;
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

  /**
   * Listens on a private path next to the socket, then renames that file onto the socket's path:
   * atomically, so the path never lacks a socket (a stale file, or another plugin process's, is
   * replaced in one step).
   */
  public Future<Void> start() {
    GrpcServer grpc =
        GrpcServer.server(
            vertx, new GrpcServerOptions().setMaxMessageSize(InvalidMessages.MAX_MESSAGE_SIZE));
    serve(
        grpc,
        DevicePluginGrpcService.GetDevicePluginOptions,
        (req, m) -> req.response().end(OPTIONS));
    serve(grpc, DevicePluginGrpcService.ListAndWatch, (req, m) -> watch(req));
    serve(
        grpc,
        DevicePluginGrpcService.GetPreferredAllocation,
        (req, m) ->
            resource
                .preferred(m)
                .onSuccess(r -> req.response().end(r))
                .onFailure(e -> fail(req.response(), GrpcStatus.INTERNAL, e)));
    serve(
        grpc,
        DevicePluginGrpcService.Allocate,
        (req, m) ->
            resource
                .allocate(m)
                .onSuccess(r -> req.response().end(r))
                .onFailure(e -> allocateFailed(req.response(), e)));
    serve(
        grpc,
        DevicePluginGrpcService.PreStartContainer,
        (req, m) -> req.response().end(PreStartContainerResponse.getDefaultInstance()));
    unsubscribe = resource.onChange(this::broadcast);
    return UnixSocketServer.listen(vertx, socket, grpc)
        .map(
            s -> {
              server = s;
              return null;
            });
  }

  /**
   * Serves {@code method}; a request message it cannot read is answered by {@link InvalidMessages}.
   */
  private <I, O> void serve(
      GrpcServer grpc, ServiceMethod<I, O> method, BiConsumer<GrpcServerRequest<I, O>, I> handler) {
    grpc.callHandler(
        method,
        req -> {
          String name = socket.getFileName().toString();
          long timer =
              vertx.setTimer(
                  InvalidMessages.MESSAGE_WITHIN.toMillis(),
                  t -> InvalidMessages.refuseMissing(req, name));
          InvalidMessages.refuseOversize(req, name, () -> vertx.cancelTimer(timer));
          req.messageHandler(
              m -> {
                // every method takes one message: a second one, after the first was answered, is
                // not read
                if (vertx.cancelTimer(timer)) {
                  InvalidMessages.decode(req, method.decoder(), m, name)
                      .ifPresent(decoded -> handler.accept(req, decoded));
                }
              });
        });
  }

  /** The incarnation of the socket file this server created; empty before it listens. */
  public Optional<String> created() {
    UnixSocketServer s = server;
    return s == null ? Optional.empty() : s.created();
  }

  /**
   * Ends the streams, closes the server and removes the socket file if it is still the one this
   * server created (not one another plugin process created on the same path since).
   */
  public Future<Void> stop() {
    stopping = true;
    unsubscribe.run();
    streams.forEach(PluginServer::endQuietly);
    streams.clear();
    return server == null ? Future.succeededFuture() : server.stop();
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
