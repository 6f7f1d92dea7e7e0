package dev.tandem.dra.kubelet;

import dev.tandem.kubelet.pluginregistration.v1.InfoRequest;
import dev.tandem.kubelet.pluginregistration.v1.PluginInfo;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationGrpcService;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationService;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatus;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatusResponse;
import dev.tandem.kubelet.serve.UnixSocketServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin registration service ({@code pluginregistration.Registration}) the kubelet's plugin
 * watcher finds in its {@code plugins_registry} directory: it says this is a DRA plugin named after
 * the driver, serving {@code v1.DRAPlugin} and {@code v1.DRAResourceHealth} at the DRA socket, and
 * hears the kubelet's verdict.
 */
public final class RegistrationServer {

  private static final Logger LOG = LoggerFactory.getLogger(RegistrationServer.class);

  /** The plugin type of a DRA driver. */
  public static final String TYPE = "DRAPlugin";

  /**
   * The gRPC services the driver serves, preferred first: the kubelet takes the first DRAPlugin it
   * knows (every supported kubelet, 1.34-1.37, knows v1), and from 1.37 watches device health only
   * from a plugin that lists {@code v1.DRAResourceHealth} (docs/dra.md, "Wire"). Kubelets that do
   * not know an entry pass over it.
   */
  public static final List<String> SERVICES = List.of("v1.DRAPlugin", "v1.DRAResourceHealth");

  private final UnixSocketServer server;

  private RegistrationServer(UnixSocketServer server) {
    this.server = server;
  }

  /**
   * Serves the registration service on {@code socket}.
   *
   * @param draSocket the absolute path of the socket serving the DRA service, as the kubelet sees
   *     it
   * @param onStatus told each verdict of the kubelet
   */
  public static Future<RegistrationServer> start(
      Vertx vertx,
      Path socket,
      String driver,
      Path draSocket,
      Consumer<RegistrationStatus> onStatus) {
    PluginInfo info =
        PluginInfo.newBuilder()
            .setType(TYPE)
            .setName(driver)
            .setEndpoint(draSocket.toAbsolutePath().toString())
            .addAllSupportedVersions(SERVICES)
            .build();
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.addService(
        RegistrationGrpcService.of(
            new RegistrationService() {
              @Override
              public Future<PluginInfo> getInfo(InfoRequest request) {
                return Future.succeededFuture(info);
              }

              @Override
              public Future<RegistrationStatusResponse> notifyRegistrationStatus(
                  RegistrationStatus status) {
                if (status.getPluginRegistered()) {
                  LOG.info("kubelet registered DRA driver {} at {}", driver, draSocket);
                } else {
                  LOG.warn(
                      "kubelet refused DRA driver {} at {}: {}",
                      driver,
                      draSocket,
                      status.getError());
                }
                onStatus.accept(status);
                return Future.succeededFuture(RegistrationStatusResponse.getDefaultInstance());
              }
            }));
    return UnixSocketServer.listen(vertx, socket, grpc).map(RegistrationServer::new);
  }

  public Path socket() {
    return server.socket();
  }

  /** Stops serving and removes the socket (so the kubelet deregisters the driver). */
  public Future<Void> stop() {
    return server.stop();
  }
}
