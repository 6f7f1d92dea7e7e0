package dev.tandem.kubelet.podresources;

import dev.tandem.kubelet.podresources.v1.AllocatableResourcesRequest;
import dev.tandem.kubelet.podresources.v1.AllocatableResourcesResponse;
import dev.tandem.kubelet.podresources.v1.ContainerDevices;
import dev.tandem.kubelet.podresources.v1.ContainerResources;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesRequest;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesResponse;
import dev.tandem.kubelet.podresources.v1.NUMANode;
import dev.tandem.kubelet.podresources.v1.PodResources;
import dev.tandem.kubelet.podresources.v1.PodResourcesListerGrpcService;
import dev.tandem.kubelet.podresources.v1.PodResourcesListerService;
import dev.tandem.kubelet.podresources.v1.TopologyInfo;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A PodResources server on a real Unix socket, answering as a kubelet does: one ContainerDevices
 * entry per device id with at most one NUMA node. It records the {@code :authority} of every
 * request.
 */
public final class FakeKubelet {

  public final List<String> authorities = new CopyOnWriteArrayList<>();
  public final AtomicReference<ListPodResourcesResponse> pods =
      new AtomicReference<>(ListPodResourcesResponse.getDefaultInstance());
  public final AtomicReference<AllocatableResourcesResponse> allocatable =
      new AtomicReference<>(AllocatableResourcesResponse.getDefaultInstance());

  /** When set, List answers only after this future completes (to test timeouts). */
  public final AtomicReference<Future<Void>> stall = new AtomicReference<>();

  private HttpServer server;

  public Future<FakeKubelet> start(Vertx vertx, Path socket) throws Exception {
    Files.deleteIfExists(socket);
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.addService(
        PodResourcesListerGrpcService.of(
            new PodResourcesListerService() {
              @Override
              public Future<ListPodResourcesResponse> list(ListPodResourcesRequest request) {
                Future<Void> wait = stall.get();
                return wait == null
                    ? Future.succeededFuture(pods.get())
                    : wait.map(v -> pods.get());
              }

              @Override
              public Future<AllocatableResourcesResponse> getAllocatableResources(
                  AllocatableResourcesRequest request) {
                return Future.succeededFuture(allocatable.get());
              }
            }));
    server =
        vertx
            .createHttpServer(new HttpServerOptions())
            .requestHandler(
                req -> {
                  authorities.add(req.authority() == null ? "<none>" : req.authority().toString());
                  grpc.handle(req);
                });
    return server.listen(SocketAddress.domainSocketAddress(socket.toString())).map(s -> this);
  }

  public Future<Void> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /** One ContainerDevices per device id, as the kubelet encodes them. */
  public static List<ContainerDevices> devices(String resource, int numa, String... ids) {
    return Arrays.stream(ids)
        .map(
            id ->
                ContainerDevices.newBuilder()
                    .setResourceName(resource)
                    .addDeviceIds(id)
                    .setTopology(
                        TopologyInfo.newBuilder().addNodes(NUMANode.newBuilder().setID(numa)))
                    .build())
        .toList();
  }

  public static PodResources pod(String namespace, String name, ContainerResources... containers) {
    return PodResources.newBuilder()
        .setNamespace(namespace)
        .setName(name)
        .addAllContainers(List.of(containers))
        .build();
  }

  public static ContainerResources container(String name, List<ContainerDevices> devices) {
    return ContainerResources.newBuilder().setName(name).addAllDevices(devices).build();
  }

  public static Promise<Void> promise() {
    return Promise.promise();
  }
}
