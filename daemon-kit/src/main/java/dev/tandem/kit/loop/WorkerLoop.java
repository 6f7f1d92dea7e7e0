package dev.tandem.kit.loop;

import dev.tandem.kit.retry.Backoff;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A daemon's repeated blocking work (rediscover the node, publish what it found) on a thread of its
 * own, never an event loop: a round runs every {@code period} from {@link #start} (none when the
 * period is zero), whenever asked ({@link #runSoon}), and, after a round that throws, again after
 * the {@link Backoff}'s delay until one succeeds. Rounds never overlap; however many asks come
 * while a round runs, they make one more round after it. The round reports its own failures (log,
 * metric): the loop only counts them and retries.
 */
public final class WorkerLoop implements AutoCloseable {

  private final Runnable round;
  private final Duration period;
  private final Backoff backoff;
  private final ScheduledThreadPoolExecutor thread;
  private final AtomicBoolean queued = new AtomicBoolean();
  private volatile int failures;
  private ScheduledFuture<?> retry;

  /**
   * @param name the thread's name, in thread dumps and logs
   * @param round the work; a {@link RuntimeException} is a failed round
   * @param period time between rounds, zero for none but those asked for
   * @param backoff the delays before retrying a failed round
   */
  public WorkerLoop(String name, Runnable round, Duration period, Backoff backoff) {
    if (period.isNegative()) {
      throw new IllegalArgumentException("the period of " + name + " is negative: " + period);
    }
    this.round = round;
    this.period = period;
    this.backoff = backoff;
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    thread.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
  }

  /** Starts the period: the first round comes one period from now, or when asked. */
  public void start() {
    if (!period.isZero()) {
      long ms = period.toMillis();
      thread.scheduleWithFixedDelay(this::runSoon, ms, ms, TimeUnit.MILLISECONDS);
    }
  }

  /** Asks for a round as soon as the one running, if any, ends. Does nothing once closed. */
  public void runSoon() {
    if (queued.compareAndSet(false, true)) {
      try {
        thread.execute(this::runQueued);
      } catch (RejectedExecutionException closed) {
        queued.set(false);
      }
    }
  }

  /** Failed rounds since the last that succeeded. */
  public int consecutiveFailures() {
    return failures;
  }

  /** Stops: a round running ends, no other starts. */
  @Override
  public void close() {
    thread.shutdown();
  }

  /** On the loop's thread. */
  private void runQueued() {
    queued.set(false);
    if (retry != null) {
      retry.cancel(false);
      retry = null;
    }
    try {
      round.run();
      failures = 0;
    } catch (RuntimeException e) {
      int n = failures + 1;
      failures = n;
      if (!backoff.exhausted(n)) {
        retryAfter(backoff.delay(n));
      }
    }
  }

  private void retryAfter(Duration delay) {
    try {
      retry = thread.schedule(this::runSoon, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closed) {
      retry = null;
    }
  }
}
