package dev.tandem.kubelet.serve;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An HTTP/2 server (a gRPC server's requests) on a Unix socket the kubelet dials: a device plugin's
 * socket, a DRA driver's registration and DRA sockets.
 *
 * <p>It listens on a private path next to the socket, then renames that file onto the socket's path
 * atomically, so the path never lacks a socket (a stale file, or another process's, is replaced in
 * one step). It owns only the socket file it created: another process serving the same path (the
 * new pod of a rolling update) replaces that file, and when this server stops afterwards it leaves
 * the other's socket alone.
 *
 * <p>A request whose {@code :authority} is a socket path, as the kubelet's plugin watcher sends, is
 * served as one for {@code localhost} ({@link SocketPathAuthority}).
 */
public final class UnixSocketServer {

  private static final Logger LOG = LoggerFactory.getLogger(UnixSocketServer.class);
  private static final AtomicLong SERVERS = new AtomicLong();

  private final Vertx vertx;
  private final Path socket;
  private final HttpServer http;
  private final Optional<String> created;

  private UnixSocketServer(Vertx vertx, Path socket, HttpServer http, Optional<String> created) {
    this.vertx = vertx;
    this.socket = socket;
    this.http = http;
    this.created = created;
  }

  /** Serves {@code handler} (a {@code GrpcServer}) on {@code socket}. */
  public static Future<UnixSocketServer> listen(
      Vertx vertx, Path socket, Handler<HttpServerRequest> handler) {
    Path bound = privatePath(socket);
    return vertx
        .executeBlocking(() -> Files.deleteIfExists(bound), false)
        .compose(
            v ->
                vertx
                    .createHttpServer(new HttpServerOptions())
                    .connectionHandler(SocketPathAuthority::install)
                    .requestHandler(handler)
                    .listen(SocketAddress.domainSocketAddress(bound.toAbsolutePath().toString())))
        .compose(
            http ->
                vertx
                    .executeBlocking(
                        () -> {
                          Files.move(bound, socket, StandardCopyOption.ATOMIC_MOVE);
                          return SocketIdentity.of(socket);
                        },
                        false)
                    .map(identity -> new UnixSocketServer(vertx, socket, http, identity)));
  }

  /**
   * Where the server binds before its file is renamed onto the socket's path. Netty deletes the
   * path it bound when the server closes, whatever file is there by then: bound here, that is never
   * the socket another process has put on the shared path since.
   */
  private static Path privatePath(Path socket) {
    return socket.resolveSibling(
        "."
            + socket.getFileName()
            + "."
            + ProcessHandle.current().pid()
            + "-"
            + SERVERS.incrementAndGet());
  }

  public Path socket() {
    return socket;
  }

  /** The incarnation of the socket file this server created ({@link SocketIdentity}). */
  public Optional<String> created() {
    return created;
  }

  /**
   * Closes the server and removes the socket file if it is still the one this server created (not
   * one another process created on the same path since).
   */
  public Future<Void> stop() {
    return http.close()
        .recover(e -> Future.succeededFuture())
        .compose(v -> vertx.executeBlocking(this::removeOwnSocket, false))
        .mapEmpty();
  }

  private boolean removeOwnSocket() throws IOException {
    Optional<String> now = SocketIdentity.of(socket);
    if (now.isEmpty()) {
      return false;
    }
    if (!now.equals(created)) {
      LOG.info(
          "leaving {} in place: another process created it after this one (rolling update?)",
          socket);
      return false;
    }
    return Files.deleteIfExists(socket);
  }
}
