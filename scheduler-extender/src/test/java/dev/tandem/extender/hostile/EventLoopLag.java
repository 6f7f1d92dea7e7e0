package dev.tandem.extender.hostile;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long the event loop went without running anything else: a timer ticks on the loop every
 * {@link #TICK}, and the longest gap between two ticks, less the tick itself, is how long some
 * handler held the loop. Used with a Vert.x of one event loop, so that the probe shares the loop
 * with every verb.
 *
 * <p>Chosen over Vert.x's blocked-thread checker, which only logs a warning (its capture would
 * depend on the logging backend) and checks at its own interval: here the measure is read after
 * each exchange, once a task queued behind the request's handling has run, so a stall is charged to
 * the request that caused it. On a loaded machine the gap also counts time the loop thread waited
 * for a core, so the threshold must sit well above that noise (seconds, not milliseconds).
 */
final class EventLoopLag {

  static final Duration TICK = Duration.ofMillis(50);

  private final Context loop;
  private final AtomicLong lastTick = new AtomicLong();
  private final AtomicLong longestGap = new AtomicLong();

  private EventLoopLag(Context loop) {
    this.loop = loop;
  }

  /** Starts ticking on an event-loop context of {@code vertx}. */
  static EventLoopLag on(Vertx vertx) {
    EventLoopLag lag = new EventLoopLag(vertx.getOrCreateContext());
    lag.lastTick.set(System.nanoTime());
    lag.loop.runOnContext(v -> vertx.setPeriodic(TICK.toMillis(), id -> lag.tick()));
    return lag;
  }

  private void tick() {
    long now = System.nanoTime();
    long gap = now - lastTick.getAndSet(now) - TICK.toNanos();
    longestGap.accumulateAndGet(gap, Math::max);
  }

  /** Forgets the gaps seen so far: called before an exchange, with the loop idle. */
  void reset() {
    lastTick.set(System.nanoTime());
    longestGap.set(0);
  }

  /**
   * The longest the loop was held since {@link #reset()}, once a task queued now has run on it;
   * {@code waitAtMost} bounds that wait (a loop still held then was held at least that long).
   */
  Duration held(Duration waitAtMost) {
    CompletableFuture<Void> ran = new CompletableFuture<>();
    loop.runOnContext(
        v -> {
          tick();
          ran.complete(null);
        });
    try {
      ran.get(waitAtMost.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      return waitAtMost;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the event loop", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("the event-loop probe failed", e);
    }
    return Duration.ofNanos(Math.max(0, longestGap.get()));
  }
}
