package dev.tandem.dra.kubelet;

import dev.tandem.dra.health.HealthFeed;
import dev.tandem.dra.prepare.ClaimOutcome;
import dev.tandem.dra.prepare.ClaimRef;
import dev.tandem.dra.prepare.PreparedDevice;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcService;
import dev.tandem.kubelet.dra.v1.DRAPluginService;
import dev.tandem.kubelet.dra.v1.Device;
import dev.tandem.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.tandem.kubelet.serve.UnixSocketServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Path;

/**
 * The DRA service v1 ({@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}) on the driver's DRA socket:
 * each claim of a call goes to the {@link Preparer} on a worker thread, one call after another, and
 * comes back as that claim's entry, its error in the entry's {@code error}. A call itself fails
 * only when the driver cannot answer at all. The same socket serves the health stream ({@code
 * v1.DRAResourceHealth}, {@link HealthStreams}): the kubelet calls it on the DRA endpoint.
 */
public final class DraServer {

  private final UnixSocketServer server;

  private DraServer(UnixSocketServer server) {
    this.server = server;
  }

  /**
   * Serves DRAPlugin v1 and the health stream on {@code socket}.
   *
   * @param health the pool's health, streamed to each kubelet that watches it
   */
  public static Future<DraServer> start(
      Vertx vertx, Path socket, Preparer preparer, HealthFeed health) {
    GrpcServer grpc = GrpcServer.server(vertx);
    HealthStreams.bind(grpc, health);
    grpc.addService(
        DRAPluginGrpcService.of(
            new DRAPluginService() {
              @Override
              public Future<NodePrepareResourcesResponse> nodePrepareResources(
                  NodePrepareResourcesRequest request) {
                return vertx.executeBlocking(() -> prepare(preparer, request), true);
              }

              @Override
              public Future<NodeUnprepareResourcesResponse> nodeUnprepareResources(
                  NodeUnprepareResourcesRequest request) {
                return vertx.executeBlocking(() -> unprepare(preparer, request), true);
              }
            }));
    return UnixSocketServer.listen(vertx, socket, grpc).map(DraServer::new);
  }

  static NodePrepareResourcesResponse prepare(
      Preparer preparer, NodePrepareResourcesRequest request) {
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    for (Claim c : request.getClaimsList()) {
      ClaimOutcome outcome = preparer.prepare(ref(c));
      NodePrepareResourceResponse.Builder entry = NodePrepareResourceResponse.newBuilder();
      if (outcome.ok()) {
        outcome.devices().forEach(d -> entry.addDevices(device(d)));
      } else {
        entry.setError(outcome.error());
      }
      out.putClaims(c.getUid(), entry.build());
    }
    return out.build();
  }

  static NodeUnprepareResourcesResponse unprepare(
      Preparer preparer, NodeUnprepareResourcesRequest request) {
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    for (Claim c : request.getClaimsList()) {
      out.putClaims(
          c.getUid(),
          NodeUnprepareResourceResponse.newBuilder().setError(preparer.unprepare(ref(c))).build());
    }
    return out.build();
  }

  private static ClaimRef ref(Claim c) {
    return new ClaimRef(c.getNamespace(), c.getUid(), c.getName());
  }

  private static Device device(PreparedDevice d) {
    return Device.newBuilder()
        .addAllRequestNames(d.requests())
        .setPoolName(d.pool())
        .setDeviceName(d.device())
        .addAllCdiDeviceIds(d.cdiIds())
        .build();
  }

  public Path socket() {
    return server.socket();
  }

  public Future<Void> stop() {
    return server.stop();
  }
}
