package dev.tandem.kubelet.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server on a real Unix socket, called over HTTP/2 with prior knowledge as the kubelet calls.
 */
class UnixSocketServerIT {

  @TempDir Path dir;

  final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  /**
   * The kubelet's plugin watcher dials the registration socket by its path, and grpc-go sends that
   * path as {@code :authority}; the real kubelet v1.35.4 never registered the DRA driver while
   * Vert.x reset such requests (e2e TestDRA).
   */
  @Test
  @DisplayName(
      "a request whose :authority is the socket's path, as the plugin watcher sends, is served")
  void socketPathAuthority() throws Exception {
    Path socket = dir.resolve("tandem.dev-reg.sock");
    UnixSocketServer server =
        UnixSocketServer.listen(
                vertx,
                socket,
                request -> request.response().end(String.valueOf(request.authority())))
            .await(10, TimeUnit.SECONDS);
    HttpClient client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false));
    for (String authority :
        new String[] {"var/lib/kubelet/plugins_registry/tandem.dev-reg.sock", "localhost"}) {
      String body =
          client
              .request(
                  new RequestOptions()
                      .setServer(SocketAddress.domainSocketAddress(socket.toString()))
                      .setMethod(HttpMethod.POST)
                      .setURI("/pluginregistration.Registration/GetInfo"))
              .compose(
                  request ->
                      request
                          .authority(HostAndPort.create(authority, -1))
                          .send()
                          .compose(response -> response.body()))
              .await(10, TimeUnit.SECONDS)
              .toString();
      assertEquals("localhost", body, "authority " + authority);
    }
    server.stop().await(10, TimeUnit.SECONDS);
  }
}
