package dev.tandem.deviceplugin.grpc;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 (prior knowledge) client whose every request carries {@code :authority: localhost}.
 * Vert.x sends no authority over a Unix socket, and current grpc-go servers (the kubelet's
 * Registration and PodResources services) reject such requests, so every call to the kubelet goes
 * through this client.
 */
public final class LocalhostAuthority implements HttpClient {

  public static final HostAndPort LOCALHOST = HostAndPort.create("localhost", -1);

  private final HttpClient delegate;

  private LocalhostAuthority(HttpClient delegate) {
    this.delegate = delegate;
  }

  public static HttpClient client(Vertx vertx) {
    return new LocalhostAuthority(vertx.createHttpClient(new HttpClientOptions()
        .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)));
  }

  @Override
  public Future<HttpClientRequest> request(RequestOptions options) {
    return delegate.request(options).map(r -> r.authority(LOCALHOST));
  }

  @Override
  public Future<Void> shutdown(long timeout, TimeUnit unit) {
    return delegate.shutdown(timeout, unit);
  }
}
