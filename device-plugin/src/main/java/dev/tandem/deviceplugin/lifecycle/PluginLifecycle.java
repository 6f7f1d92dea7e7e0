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
 * server is stopped before the new one starts. A socket replaced by another plugin process (two
 * pods of a rolling update overlapping) is left to that process: this one reports itself
 * unregistered and, when stopped, removes nothing but its own file. While {@code kubelet.sock} is
 * absent the plugin waits (and says so). Failed registrations are retried with {@link Backoff};
 * when they are exhausted, {@link #failed()} completes and the process should exit non-zero.
 * Restart storms (more than 3 in 10 s) are slowed down with the same backoff.
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
  private final Path pluginSocket;
  private final KubeletRegistration registration;
  private final ServedResource resource;
  private final Backoff backoff;
  private final PluginMetrics metrics;
  private final Clock clock;
  private final Promise<Void> failed = Promise.promise();
  private final AtomicInteger kubeletAbsent = new AtomicInteger();
  private final AtomicInteger slowedRestarts = new AtomicInteger();
  private final Deque<Long> recentRestarts = new ArrayDeque<>();
  private PluginServer server;
  private String registeredKubelet;
  private boolean busy;
  private boolean stopped;
  private boolean superseded;
  private long watchTimer = -1;
  private long waitingSince = -1;
  private int failures;
  private volatile String notRegistered = "not started";

  /**
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
    this.pluginSocket = pluginSocket;
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
    if (busy || stopped || superseded) {
      return;
    }
    vertx
        .executeBlocking(
            () ->
                new Observed(
                    SocketIdentity.of(registration.socket()), SocketIdentity.of(pluginSocket)),
            false)
        .onSuccess(
            o -> {
              if (busy || stopped || superseded) {
                return;
              }
              if (o.kubelet().isPresent() && !o.kubelet().get().equals(registeredKubelet)) {
                restart(
                    "kubelet socket "
                        + registration.socket()
                        + " was created again (kubelet restart)");
              } else if (o.plugin().isEmpty() && o.kubelet().isPresent()) {
                restart("our socket " + pluginSocket + " was removed");
              } else if (replacedByAnother(o.plugin())) {
                supersede();
              }
            });
  }

  /** Our server listens, and the file at its path is not the one it created. */
  private boolean replacedByAnother(Optional<String> plugin) {
    PluginServer s = server;
    return s != null
        && plugin.isPresent()
        && s.created().isPresent()
        && !plugin.equals(s.created());
  }

  /**
   * Another plugin process listens on our path now (the new pod of a rolling update) and has
   * registered: the kubelet talks to it. This one stays idle until it is stopped: registering again
   * would take the path back and make the two steal it from each other, and ending its streams
   * early would make the kubelet drop the other one too (it disconnects whichever client holds the
   * resource when any stream of that resource ends).
   */
  private void supersede() {
    if (superseded) {
      return;
    }
    superseded = true;
    LOG.info(
        "another plugin process serves {} now (the new pod of a rolling update?); this one stays"
            + " idle until it stops and will remove nothing of the other's",
        pluginSocket);
    unregistered("another plugin process took over " + pluginSocket);
  }

  private record Observed(Optional<String> kubelet, Optional<String> plugin) {}

  private void onStreamLost() {
    context.runOnContext(
        v -> {
          if (busy || stopped || superseded) {
            return;
          }
          busy = true;
          vertx
              .executeBlocking(() -> SocketIdentity.of(pluginSocket), false)
              .onComplete(
                  ar -> {
                    busy = false;
                    if (stopped || superseded) {
                      return;
                    }
                    if (ar.succeeded() && replacedByAnother(ar.result())) {
                      supersede();
                    } else {
                      restart("the kubelet cancelled the ListAndWatch stream");
                    }
                  });
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
              server = new PluginServer(vertx, pluginSocket, resource, this::onStreamLost);
              server
                  .start()
                  .compose(
                      v ->
                          registration.register(
                              pluginSocket.getFileName().toString(),
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
        pluginSocket.getFileName());
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
