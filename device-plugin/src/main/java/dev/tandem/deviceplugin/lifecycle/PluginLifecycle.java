package dev.tandem.deviceplugin.lifecycle;

import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.grpc.PluginServer;
import dev.tandem.deviceplugin.grpc.ServedResource;
import dev.tandem.deviceplugin.ops.PluginMetrics;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.kubelet.serve.SocketIdentity;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serve, then register; and again whenever the kubelet restarts. A restart is seen as {@code
 * kubelet.sock} re-created, our own socket removed, or the ListAndWatch stream cancelled; the old
 * server is stopped before the new one starts. Every server listens on a socket path of its own
 * ({@link PluginSockets}), so two plugin processes of a rolling update serve side by side and the
 * one stopping removes only its own file; before serving, sockets of this resource that nobody
 * listens on any more are deleted. While {@code kubelet.sock} is absent the plugin waits (and says
 * so). Failed registrations are retried with {@link Backoff}; when they are exhausted, {@link
 * #failed()} completes and the process should exit non-zero. Restart storms (more than 3 in 10 s)
 * are slowed down with the same backoff.
 */
public final class PluginLifecycle {

  private static final Logger LOG = LoggerFactory.getLogger(PluginLifecycle.class);
  private static final long WATCH_MS = 200;
  private static final long WAIT_LOG_MS = 30_000;
  private static final long STORM_WINDOW_MS = 10_000;

  /** Registration retries: 500 ms doubling to 8 s, giving up after 10 failures in a row. */
  public static final Backoff DEFAULT_BACKOFF =
      new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8), 10);

  private final Vertx vertx;
  private final Context context;
  private final PluginSockets sockets;
  private final KubeletRegistration registration;
  private final ServedResource resource;
  private final Backoff backoff;
  private final PluginMetrics metrics;
  private final Clock clock;
  private final Promise<Void> failed = Promise.promise();
  private final AtomicInteger kubeletAbsent = new AtomicInteger();
  private final AtomicInteger slowedRestarts = new AtomicInteger();
  private final Deque<Long> recentRestarts = new ArrayDeque<>();
  private volatile PluginServer server;
  private String registeredKubelet;
  private boolean busy;
  private boolean stopped;
  private long watchTimer = -1;
  private long waitingSince = -1;
  private int failures;
  private volatile String notRegistered = "not started";

  /**
   * @param pluginSocket {@code <plugin-dir>/<endpoint>}: the servers' sockets are named after it
   *     ({@link PluginSockets})
   * @param clock the time of restarts (more than 3 within 10 s are a storm) and of the "waiting for
   *     the kubelet" log lines (one per 30 s)
   */
  public PluginLifecycle(
      Vertx vertx,
      Path pluginSocket,
      KubeletRegistration registration,
      ServedResource resource,
      Backoff backoff,
      PluginMetrics metrics,
      Clock clock) {
    this.metrics = metrics;
    this.clock = clock;
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.sockets = new PluginSockets(pluginSocket);
    this.registration = registration;
    this.resource = resource;
    this.backoff = backoff;
  }

  /** Starts watching and registering; returns at once. */
  public void start() {
    context.runOnContext(
        v -> {
          busy = true;
          watchTimer = vertx.setPeriodic(WATCH_MS, id -> watch());
          cycle();
        });
  }

  /** Completes when registration attempts are exhausted (with the last error). */
  public Future<Void> failed() {
    return failed.future();
  }

  /** Why the resource is not registered with the kubelet now; empty while it is. */
  public Optional<String> notRegistered() {
    return Optional.ofNullable(notRegistered);
  }

  /** The socket the plugin serves on now, if it serves. */
  public Optional<Path> socket() {
    PluginServer s = server;
    return s == null ? Optional.empty() : Optional.of(s.socket());
  }

  /** How many times the plugin looked for the kubelet's socket and found none. */
  public int kubeletAbsentChecks() {
    return kubeletAbsent.get();
  }

  /** How many restarts waited for the backoff, being part of a restart storm. */
  public int slowedRestarts() {
    return slowedRestarts.get();
  }

  /** Stops watching, ends the streams, removes the socket. */
  public Future<Void> stop() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          stopped = true;
          unregistered("stopped");
          vertx.cancelTimer(watchTimer);
          stopServer().onComplete(done);
        });
    return done.future();
  }

  private void watch() {
    if (busy || stopped) {
      return;
    }
    PluginServer watched = server;
    if (watched == null) {
      return;
    }
    vertx
        .executeBlocking(
            () ->
                new Observed(
                    SocketIdentity.of(registration.socket()), SocketIdentity.of(watched.socket())),
            false)
        .onSuccess(
            o -> {
              if (busy || stopped || server != watched) {
                return;
              }
              if (o.kubelet().isPresent() && !o.kubelet().get().equals(registeredKubelet)) {
                restart(
                    "kubelet socket "
                        + registration.socket()
                        + " was created again (kubelet restart)");
              } else if (o.plugin().isEmpty() && o.kubelet().isPresent()) {
                restart("our socket " + watched.socket() + " was removed");
              }
            });
  }

  private record Observed(Optional<String> kubelet, Optional<String> plugin) {}

  private void onStreamLost() {
    context.runOnContext(
        v -> {
          if (busy || stopped) {
            return;
          }
          restart("the kubelet cancelled the ListAndWatch stream");
        });
  }

  /** Restarts at once, unless more than 3 restarts happened in the last 10 s: then with backoff. */
  private void restart(String why) {
    busy = true;
    unregistered("re-registering: " + why);
    long now = clock.millis();
    recentRestarts.addLast(now);
    while (now - recentRestarts.peekFirst() > STORM_WINDOW_MS) {
      recentRestarts.removeFirst();
    }
    long delay =
        recentRestarts.size() > 3 ? backoff.delay(recentRestarts.size() - 3).toMillis() : 0;
    if (delay > 0) {
      slowedRestarts.incrementAndGet();
    }
    LOG.info(
        "re-registering{}: {}",
        delay > 0 ? " in " + delay + " ms (" + recentRestarts.size() + " restarts in 10 s)" : "",
        why);
    stopServer()
        .onComplete(
            v -> {
              if (delay > 0) {
                vertx.setTimer(delay, id -> cycle());
              } else {
                cycle();
              }
            });
  }

  /**
   * Waits for kubelet.sock, serves, registers; retries with backoff. Runs with {@code busy} set.
   */
  private void cycle() {
    if (stopped) {
      return;
    }
    vertx
        .executeBlocking(() -> SocketIdentity.of(registration.socket()), false)
        .onComplete(
            ar -> {
              Optional<String> kubelet = ar.succeeded() ? ar.result() : Optional.empty();
              if (kubelet.isEmpty()) {
                waitForKubelet();
                return;
              }
              waitingSince = -1;
              notRegistered = "registering with the kubelet at " + registration.socket();
              Path socket = sockets.next();
              server = new PluginServer(vertx, socket, resource, this::onStreamLost);
              vertx
                  .executeBlocking(this::removeStaleSockets, false)
                  .compose(v -> server.start())
                  .compose(
                      v ->
                          registration.register(
                              socket.getFileName().toString(),
                              resource.resourceName(),
                              PluginServer.OPTIONS))
                  .onSuccess(v -> registered(kubelet.get()))
                  .onFailure(this::registrationFailed);
            });
  }

  private void waitForKubelet() {
    kubeletAbsent.incrementAndGet();
    notRegistered = "waiting for the kubelet socket " + registration.socket();
    long now = clock.millis();
    if (waitingSince < 0 || now - waitingSince >= WAIT_LOG_MS) {
      LOG.info(
          "waiting for the kubelet socket {} (is the kubelet running? see --kubelet-socket)",
          registration.socket());
      waitingSince = now;
    }
    vertx.setTimer(WATCH_MS, id -> cycle());
  }

  private void registered(String kubelet) {
    registeredKubelet = kubelet;
    failures = 0;
    busy = false;
    notRegistered = null;
    metrics.registration(resource.resourceName(), true);
    LOG.info(
        "registered {} ({}) with the kubelet at {} as {}",
        resource.resourceName(),
        resource.describe(),
        registration.socket(),
        socket().map(Path::getFileName).orElse(null));
  }

  /** Deletes this resource's sockets nobody listens on (dead processes'); never a live one. */
  private Void removeStaleSockets() {
    try {
      for (Path p : sockets.removeStale(Optional.empty())) {
        LOG.info("removed {}: a socket of {} nobody listens on", p, resource.resourceName());
      }
    } catch (IOException e) {
      LOG.warn("could not look for stale sockets of {}: {}", resource.resourceName(), e.toString());
    }
    return null;
  }

  private void registrationFailed(Throwable e) {
    failures++;
    metrics.registration(resource.resourceName(), false);
    notRegistered =
        "registration with the kubelet at "
            + registration.socket()
            + " failed (attempt "
            + failures
            + "): "
            + e.getMessage();
    LOG.warn(
        "registration with the kubelet at {} failed (attempt {} of {}): {}",
        registration.socket(),
        failures,
        backoff.maxAttempts(),
        e.toString());
    stopServer()
        .onComplete(
            v -> {
              if (backoff.exhausted(failures)) {
                failed.tryFail(
                    new IllegalStateException(
                        "could not register with the kubelet at "
                            + registration.socket()
                            + " after "
                            + failures
                            + " attempts; last error: "
                            + e.getMessage(),
                        e));
                return;
              }
              vertx.setTimer(backoff.delay(failures).toMillis(), id -> cycle());
            });
  }

  private void unregistered(String why) {
    notRegistered = why;
    metrics.registered(resource.resourceName(), false);
  }

  private Future<Void> stopServer() {
    PluginServer s = server;
    server = null;
    return s == null ? Future.succeededFuture() : s.stop();
  }
}
