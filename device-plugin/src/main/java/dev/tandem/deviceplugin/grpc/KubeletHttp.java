package dev.tandem.deviceplugin.grpc;

import dev.tandem.agent.podresources.LocalhostAuthority;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;

/**
 * The HTTP/2 (prior knowledge) client for calls to the kubelet: every request carries
 * {@code :authority: localhost} (the agent's {@link LocalhostAuthority}), which current grpc-go
 * servers require and Vert.x does not send over a Unix socket by itself.
 */
public final class KubeletHttp {

  private KubeletHttp() {}

  public static HttpClient client(Vertx vertx) {
    return new LocalhostAuthority(vertx.createHttpClient(new HttpClientOptions()
        .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false)));
  }
}
