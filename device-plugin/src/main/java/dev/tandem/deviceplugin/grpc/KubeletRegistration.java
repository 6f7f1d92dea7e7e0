package dev.tandem.deviceplugin.grpc;

import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.tandem.kubelet.deviceplugin.v1beta1.Empty;
import dev.tandem.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.RegistrationGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Calls the kubelet's {@code /v1beta1.Registration/Register} over its Unix socket. */
public final class KubeletRegistration {

  public static final String VERSION = "v1beta1";

  private final GrpcClient grpc;
  private final SocketAddress address;
  private final Path kubeletSocket;
  private final long timeoutMs;

  public KubeletRegistration(Vertx vertx, Path kubeletSocket, long timeoutMs) {
    this.kubeletSocket = kubeletSocket;
    this.grpc = GrpcClient.client(vertx, KubeletGrpcClient.http(vertx));
    this.address = SocketAddress.domainSocketAddress(kubeletSocket.toAbsolutePath().toString());
    this.timeoutMs = timeoutMs;
  }

  public Path socket() {
    return kubeletSocket;
  }

  /**
   * Registers {@code resource}, served at {@code endpoint} (a file name in the plugin directory).
   */
  public Future<Empty> register(String endpoint, String resource, DevicePluginOptions options) {
    RegisterRequest request =
        RegisterRequest.newBuilder()
            .setVersion(VERSION)
            .setEndpoint(endpoint)
            .setResourceName(resource)
            .setOptions(options)
            .build();
    return grpc.request(address, RegistrationGrpcClient.Register)
        .compose(req -> req.send(request))
        .compose(
            resp ->
                resp.last()
                    .recover(
                        e ->
                            Future.failedFuture(
                                new IllegalStateException(
                                    "kubelet answered "
                                        + (resp.status() == null
                                            ? e.toString()
                                            : resp.status().name()
                                                + ": "
                                                + resp.statusMessage())))))
        // the kubelet answers only after calling our GetDevicePluginOptions: bound the wait
        .timeout(timeoutMs, TimeUnit.MILLISECONDS);
  }

  public Future<Void> close() {
    return grpc.close();
  }
}
