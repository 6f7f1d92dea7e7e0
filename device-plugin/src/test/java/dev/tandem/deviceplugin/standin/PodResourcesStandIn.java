package dev.tandem.deviceplugin.standin;

import dev.tandem.kubelet.podresources.v1.ContainerDevices;
import dev.tandem.kubelet.podresources.v1.ContainerResources;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.tandem.kubelet.podresources.v1.PodResources;
import dev.tandem.kubelet.podresources.v1.PodResourcesListerGrpcService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The kubelet's PodResources List on a Unix socket: one pod's container holding the given GPUs. */
public final class PodResourcesStandIn {

  private final Vertx vertx;
  private final Path socket;
  private final List<String> authorities = new CopyOnWriteArrayList<>();
  private volatile ListPodResourcesResponse answer = ListPodResourcesResponse.getDefaultInstance();
  private HttpServer server;

  public PodResourcesStandIn(Vertx vertx, Path socket) {
    this.vertx = vertx;
    this.socket = socket;
  }

  public void holds(
      String namespace, String pod, String container, String resource, List<String> ids) {
    ContainerResources.Builder c = ContainerResources.newBuilder().setName(container);
    for (String id : ids) {
      c.addDevices(ContainerDevices.newBuilder().setResourceName(resource).addDeviceIds(id));
    }
    answer =
        ListPodResourcesResponse.newBuilder()
            .addPodResources(
                PodResources.newBuilder().setNamespace(namespace).setName(pod).addContainers(c))
            .build();
  }

  public List<String> authorities() {
    return authorities;
  }

  public Future<Void> start() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(
        PodResourcesListerGrpcService.List, req -> req.handler(m -> req.response().end(answer)));
    return vertx
        .createHttpServer()
        .requestHandler(
            r -> {
              authorities.add(r.authority() == null ? "<none>" : r.authority().toString());
              grpc.handle(r);
            })
        .listen(SocketAddress.domainSocketAddress(socket.toString()))
        .map(
            s -> {
              server = s;
              return null;
            });
  }
}
