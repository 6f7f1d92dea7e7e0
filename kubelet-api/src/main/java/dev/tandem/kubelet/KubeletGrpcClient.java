package dev.tandem.kubelet;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientOptions;
import io.vertx.grpc.client.impl.GrpcClientImpl;

/**
 * A Vert.x gRPC client for kubelet sockets: HTTP/2 with prior knowledge, {@code :authority:
 * localhost} on every call ({@link LocalhostAuthority}) and a 16 MiB inbound message limit (as
 * other PodResources consumers use). It extends the implementation class because the public
 * factories accept either client options or an HTTP client, not both.
 */
public final class KubeletGrpcClient extends GrpcClientImpl {

  public static final long MAX_MESSAGE_SIZE = 16L * 1024 * 1024;

  private KubeletGrpcClient(Vertx vertx, GrpcClientOptions options, LocalhostAuthority http) {
    super(vertx, options, http, true);
  }

  public static GrpcClient create(Vertx vertx) {
    GrpcClientOptions grpc = new GrpcClientOptions().setMaxMessageSize(MAX_MESSAGE_SIZE);
    return new KubeletGrpcClient(vertx, grpc, http(vertx));
  }

  /** The HTTP/2 (prior knowledge) client under every call to the kubelet. */
  public static LocalhostAuthority http(Vertx vertx) {
    return new LocalhostAuthority(
        vertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false)));
  }
}
