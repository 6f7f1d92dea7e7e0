package dev.tandem.deviceplugin.standin;

import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginGrpcClient;
import dev.tandem.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import dev.tandem.kubelet.deviceplugin.v1beta1.Empty;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.RegisterRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.RegistrationGrpcService;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.client.GrpcClientRequest;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Plays the kubelet as shared/PROTOCOLS.md §3 describes it: serves Registration on a real Unix
 * socket; inside Register dials the plugin's socket (authority localhost), calls
 * GetDevicePluginOptions and opens ListAndWatch (response handler attached before the request
 * ends), then answers Register. Records the {@code :authority} of every call it receives.
 */
public final class KubeletStandIn {

  private final Vertx vertx;
  private final Path dir;
  private final Path socket;
  private final GrpcClient client;
  private final BlockingQueue<ListAndWatchResponse> lists = new LinkedBlockingQueue<>();
  private final List<RegisterRequest> registrations = new CopyOnWriteArrayList<>();
  private final List<String> authorities = new CopyOnWriteArrayList<>();
  private final List<DevicePluginOptions> options = new CopyOnWriteArrayList<>();
  private volatile DevicePluginGrpcClient plugin;
  private final Map<String, DevicePluginGrpcClient> byResource = new ConcurrentHashMap<>();
  private final Map<String, BlockingQueue<ListAndWatchResponse>> listsByResource =
      new ConcurrentHashMap<>();
  private HttpServer server;
  private volatile boolean serving;
  private volatile boolean refuse;
  private volatile GrpcClientRequest<?, ?> stream;

  public KubeletStandIn(Vertx vertx, Path dir) {
    this.vertx = vertx;
    this.dir = dir;
    this.socket = dir.resolve("kubelet.sock");
    this.client = GrpcClient.client(vertx, KubeletGrpcClient.http(vertx));
  }

  public Path socket() {
    return socket;
  }

  /** The kubelet's device-plugin directory: {@code kubelet.sock} and the plugins' sockets. */
  public Path dir() {
    return dir;
  }

  public Future<Void> start() {
    GrpcServer grpc = GrpcServer.server(vertx);
    grpc.callHandler(
        RegistrationGrpcService.Register,
        req ->
            req.handler(
                r ->
                    register(r)
                        .onComplete(
                            ar -> {
                              if (ar.succeeded()) {
                                req.response().end(Empty.getDefaultInstance());
                              } else {
                                req.response()
                                    .status(GrpcStatus.UNKNOWN)
                                    .statusMessage(ar.cause().getMessage())
                                    .end();
                              }
                            })));
    return vertx
        .executeBlocking(() -> Files.deleteIfExists(socket))
        .compose(
            v ->
                vertx
                    .createHttpServer()
                    .requestHandler(
                        r -> {
                          authorities.add(
                              r.authority() == null ? "<none>" : r.authority().toString());
                          grpc.handle(r);
                        })
                    .listen(SocketAddress.domainSocketAddress(socket.toString())))
        .map(
            s -> {
              server = s;
              serving = true;
              return null;
            });
  }

  /** Stops serving and removes kubelet.sock, like a kubelet going down. */
  public Future<Void> stop() {
    serving = false;
    return server
        .close()
        .compose(v -> vertx.executeBlocking(() -> Files.deleteIfExists(socket)))
        .mapEmpty();
  }

  /**
   * The end of a test: stops serving if it still does, then removes the directory with whatever the
   * plugins left in it.
   */
  public Future<Void> close() {
    return (serving ? stop() : Future.<Void>succeededFuture())
        .compose(v -> vertx.fileSystem().deleteRecursive(dir.toString()));
  }

  /** The kubelet restarting: stop, delete every socket in the directory, start again. */
  public Future<Void> restart() {
    return stop()
        .compose(
            v ->
                vertx.executeBlocking(
                    () -> {
                      try (var files = Files.list(dir)) {
                        for (Path p : files.filter(f -> f.toString().endsWith(".sock")).toList()) {
                          Files.deleteIfExists(p);
                        }
                      }
                      return null;
                    }))
        .compose(v -> start());
  }

  /** From now on, answer Register with an error (a kubelet refusing the plugin). */
  public void refuseRegistrations() {
    refuse = true;
  }

  private Future<Void> register(RegisterRequest r) {
    registrations.add(r);
    if (refuse) {
      return Future.failedFuture("registration refused by the stand-in");
    }
    DevicePluginGrpcClient p =
        DevicePluginGrpcClient.create(
            client, SocketAddress.domainSocketAddress(dir.resolve(r.getEndpoint()).toString()));
    plugin = p;
    byResource.put(r.getResourceName(), p);
    return p.getDevicePluginOptions(Empty.getDefaultInstance())
        .compose(
            o -> {
              options.add(o);
              return listAndWatch(r.getEndpoint(), queue(r.getResourceName()));
            });
  }

  private BlockingQueue<ListAndWatchResponse> queue(String resource) {
    return listsByResource.computeIfAbsent(resource, k -> new LinkedBlockingQueue<>());
  }

  private Future<Void> listAndWatch(String endpoint, BlockingQueue<ListAndWatchResponse> mine) {
    return client
        .request(
            SocketAddress.domainSocketAddress(dir.resolve(endpoint).toString()),
            DevicePluginGrpcClient.ListAndWatch)
        .compose(
            req -> {
              stream = req;
              req.response()
                  .onSuccess(
                      resp ->
                          resp.handler(
                              l -> {
                                lists.add(l);
                                mine.add(l);
                              }));
              return req.end(Empty.getDefaultInstance());
            });
  }

  /** Cancels the ListAndWatch stream (RST_STREAM CANCEL), as a kubelet dropping its client does. */
  public void cancelStream() {
    stream.cancel();
  }

  public ListAndWatchResponse nextList(long timeoutMs) throws InterruptedException {
    return lists.poll(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /**
   * Waits for a ListAndWatch message on the open stream with exactly these device ids, in order;
   * fails naming the last list seen when none comes within {@code timeout}.
   */
  public void awaitIds(List<String> want, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> last = null;
    while (System.nanoTime() < deadline) {
      ListAndWatchResponse l = nextList(1000);
      if (l == null) {
        continue;
      }
      last = l.getDevicesList().stream().map(d -> d.getID()).toList();
      if (last.equals(want)) {
        return;
      }
    }
    throw new AssertionError(
        "no ListAndWatch list with " + want + " within " + timeout + "; last " + last);
  }

  /** The next ListAndWatch message of one resource (joint mode has two streams). */
  public ListAndWatchResponse nextList(String resource, long timeoutMs)
      throws InterruptedException {
    return queue(resource).poll(timeoutMs, TimeUnit.MILLISECONDS);
  }

  /** GetPreferredAllocation on the plugin that registered {@code resource}. */
  public PreferredAllocationResponse preferred(String resource, PreferredAllocationRequest r) {
    return byResource.get(resource).getPreferredAllocation(r).await();
  }

  public AllocateResponse allocate(String resource, AllocateRequest r) {
    return byResource.get(resource).allocate(r).await();
  }

  /**
   * Allocate as a raw call on the plugin of {@code resource}: "OK" or the gRPC status and message.
   */
  public String allocateStatus(String resource, AllocateRequest r) {
    String endpoint =
        registrations.stream()
            .filter(x -> x.getResourceName().equals(resource))
            .reduce((a, b) -> b)
            .orElseThrow()
            .getEndpoint();
    return client
        .request(
            SocketAddress.domainSocketAddress(dir.resolve(endpoint).toString()),
            DevicePluginGrpcClient.Allocate)
        .compose(req -> req.send(r))
        .compose(
            resp ->
                resp.end()
                    .transform(
                        ar ->
                            Future.succeededFuture(
                                resp.status().name()
                                    + (resp.statusMessage() == null
                                        ? ""
                                        : ": " + resp.statusMessage()))))
        .await();
  }

  public List<RegisterRequest> registrations() {
    return registrations;
  }

  public List<String> authorities() {
    return authorities;
  }

  public List<DevicePluginOptions> options() {
    return options;
  }

  public PreferredAllocationResponse preferred(PreferredAllocationRequest r) {
    return plugin.getPreferredAllocation(r).await();
  }

  /**
   * Allocate as a raw call: the gRPC status and message the kubelet would log ("OK" on success).
   */
  public String allocateStatus(AllocateRequest r) {
    return client
        .request(
            SocketAddress.domainSocketAddress(
                dir.resolve(registrations.get(registrations.size() - 1).getEndpoint()).toString()),
            DevicePluginGrpcClient.Allocate)
        .compose(req -> req.send(r))
        .compose(
            resp ->
                resp.end()
                    .transform(
                        ar ->
                            Future.succeededFuture(
                                resp.status().name()
                                    + (resp.statusMessage() == null
                                        ? ""
                                        : ": " + resp.statusMessage()))))
        .await();
  }

  public AllocateResponse allocate(AllocateRequest r) {
    return plugin.allocate(r).await();
  }
}
