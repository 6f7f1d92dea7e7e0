package dev.tandem.kubelet.podresources;

import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.podresources.v1.AllocatableResourcesRequest;
import dev.tandem.kubelet.podresources.v1.ListPodResourcesRequest;
import dev.tandem.kubelet.podresources.v1.PodResourcesListerGrpcClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.common.ServiceMethod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The kubelet's PodResources API v1 over its Unix socket: which devices each container holds
 * ({@link #list()}) and which healthy devices exist ({@link #allocatable()}).
 *
 * <p>Every call carries {@code :authority: localhost}, is bounded by the timeout (sent as {@code
 * grpc-timeout} and enforced locally) and is spaced at least 10 ms after the previous one, which
 * keeps one client under the kubelet's limit of 100 calls per second. Reusable: the device plugin
 * asks it which GPUs a container already holds.
 */
public final class PodResourcesClient {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  static final long MIN_SPACING_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  private final Vertx vertx;
  private final Path socket;
  private final Duration timeout;
  private final GrpcClient grpc;
  private final SocketAddress address;
  private long nextCallNanos = System.nanoTime();

  private PodResourcesClient(Vertx vertx, Path socket, Duration timeout) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
    this.socket = Objects.requireNonNull(socket, "socket");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.grpc = KubeletGrpcClient.create(vertx);
    this.address = SocketAddress.domainSocketAddress(socket.toAbsolutePath().toString());
  }

  /**
   * A client of the socket a node daemon's {@code --pod-resources-socket} names (its default,
   * {@code /var/lib/kubelet/pod-resources/kubelet.sock}, is declared once, in daemon-kit's node
   * settings).
   */
  public static PodResourcesClient create(Vertx vertx, Path socket, Duration timeout) {
    return new PodResourcesClient(vertx, socket, timeout);
  }

  public Path socket() {
    return socket;
  }

  /**
   * Every container the kubelet lists (active pods; regular and sidecar containers), with its
   * devices.
   */
  public Future<List<PodDevices>> list() {
    return call(PodResourcesListerGrpcClient.List, ListPodResourcesRequest.getDefaultInstance())
        .map(PodResourcesDecoder::pods);
  }

  /** The node's healthy devices, one record per resource and device id. */
  public Future<List<AllocatableDevice>> allocatable() {
    return call(
            PodResourcesListerGrpcClient.GetAllocatableResources,
            AllocatableResourcesRequest.getDefaultInstance())
        .map(PodResourcesDecoder::allocatable);
  }

  public Future<Void> close() {
    return grpc.close();
  }

  private <Q, R> Future<R> call(ServiceMethod<R, Q> method, Q request) {
    Supplier<Future<R>> send =
        () ->
            grpc.request(address, method)
                .compose(
                    req -> {
                      req.timeout(timeout.toMillis(), TimeUnit.MILLISECONDS);
                      return req.send(request).compose(resp -> resp.last());
                    });
    return spaced(send)
        .timeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
        .recover(
            e -> Future.failedFuture(new PodResourcesException(socket, method.methodName(), e)));
  }

  private synchronized <R> Future<R> spaced(Supplier<Future<R>> send) {
    long now = System.nanoTime();
    long at = Math.max(now, nextCallNanos);
    nextCallNanos = at + MIN_SPACING_NANOS;
    long delayMillis = TimeUnit.NANOSECONDS.toMillis(at - now);
    if (delayMillis < 1) {
      return send.get();
    }
    return Future.<Void>future(p -> vertx.setTimer(delayMillis, id -> p.complete()))
        .compose(v -> send.get());
  }
}
