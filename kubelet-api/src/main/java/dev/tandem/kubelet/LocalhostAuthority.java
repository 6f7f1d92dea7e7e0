package dev.tandem.kubelet;

import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP client that sends {@code :authority: localhost} on every request. Over a Unix socket the
 * Vert.x client sends no authority, and current grpc-go servers (the kubelet's PodResources and
 * Registration servers) reject requests that carry neither {@code :authority} nor {@code Host}.
 */
public final class LocalhostAuthority implements HttpClient {

  public static final HostAndPort LOCALHOST = HostAndPort.authority("localhost");

  private final HttpClient delegate;

  public LocalhostAuthority(HttpClient delegate) {
    this.delegate = delegate;
  }

  @Override
  public Future<HttpClientRequest> request(RequestOptions options) {
    return delegate.request(options).map(request -> request.authority(LOCALHOST));
  }

  @Override
  public Future<Void> shutdown(long timeout, TimeUnit unit) {
    return delegate.shutdown(timeout, unit);
  }
}
