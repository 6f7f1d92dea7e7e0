package dev.tandem.kit.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.kit.retry.Backoff;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Rounds on the loop's own thread: at start, on a period, when asked, retried after failures. */
@DisplayName("WorkerLoop: rounds never overlap, asks coalesce, failures retried after the backoff")
class WorkerLoopTest {

  static final Backoff FAST = new Backoff(Duration.ofMillis(10), Duration.ofMillis(10));
  static final Backoff SLOW = new Backoff(Duration.ofHours(1), Duration.ofHours(1));

  /** Waits for the next round, at most long enough for a slow machine. */
  static <T> T next(BlockingQueue<T> rounds) throws InterruptedException {
    return rounds.poll(10, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName("no period: a round each time asked and no other, on a thread named for the loop")
  void startAndAsk() throws Exception {
    BlockingQueue<String> rounds = new LinkedBlockingQueue<>();
    try (WorkerLoop loop =
        new WorkerLoop(
            "pool-loop", () -> rounds.add(Thread.currentThread().getName()), Duration.ZERO, SLOW)) {
      loop.start();
      assertNull(rounds.poll(50, TimeUnit.MILLISECONDS), "no period: no round unasked");
      loop.runSoon();
      assertEquals("pool-loop", next(rounds));
      loop.runSoon();
      assertEquals("pool-loop", next(rounds));
    }
  }

  @Test
  @DisplayName("with a period, rounds keep coming unasked")
  void period() throws Exception {
    BlockingQueue<String> rounds = new LinkedBlockingQueue<>();
    try (WorkerLoop loop =
        new WorkerLoop("periodic", () -> rounds.add("round"), Duration.ofMillis(5), SLOW)) {
      loop.start();
      for (int i = 0; i < 3; i++) {
        assertNotNull(next(rounds), "round " + i);
      }
    }
  }

  @Test
  @DisplayName("asks during a round make exactly one more round after it, never two at once")
  void coalesces() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    BlockingQueue<Integer> done = new LinkedBlockingQueue<>();
    AtomicInteger count = new AtomicInteger();
    Runnable round =
        () -> {
          if (running.incrementAndGet() > 1) {
            overlaps.incrementAndGet();
          }
          int n = count.incrementAndGet();
          if (n == 1) {
            inside.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          running.decrementAndGet();
          done.add(n);
        };
    try (WorkerLoop loop = new WorkerLoop("coalesce", round, Duration.ZERO, SLOW)) {
      loop.start();
      loop.runSoon();
      assertTrue(inside.await(10, TimeUnit.SECONDS));
      for (int i = 0; i < 5; i++) {
        loop.runSoon();
      }
      release.countDown();
      assertEquals(1, done.poll(10, TimeUnit.SECONDS));
      assertEquals(2, done.poll(10, TimeUnit.SECONDS));
      assertNull(done.poll(50, TimeUnit.MILLISECONDS), "five asks, one more round");
      assertEquals(0, overlaps.get());
    }
  }

  @Test
  @DisplayName("a failed round is retried after the backoff until one succeeds; failures counted")
  void retries() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    BlockingQueue<Integer> rounds = new LinkedBlockingQueue<>();
    Runnable round =
        () -> {
          int n = calls.incrementAndGet();
          rounds.add(n);
          if (n <= 2) {
            throw new IllegalStateException("API server down");
          }
        };
    try (WorkerLoop loop = new WorkerLoop("retry", round, Duration.ZERO, FAST)) {
      loop.start();
      loop.runSoon();
      assertEquals(1, (int) next(rounds));
      assertEquals(2, (int) next(rounds), "retried unasked");
      assertEquals(3, (int) next(rounds), "retried again");
      assertNull(rounds.poll(100, TimeUnit.MILLISECONDS), "no retry after a success");
      assertEquals(0, loop.consecutiveFailures());
    }
  }

  @Test
  @DisplayName("failures in a row are counted; a closed loop runs nothing more")
  void countsAndCloses() throws Exception {
    BlockingQueue<Integer> seen = new LinkedBlockingQueue<>();
    AtomicReference<WorkerLoop> self = new AtomicReference<>();
    WorkerLoop loop =
        new WorkerLoop(
            "closing",
            () -> {
              seen.add(self.get().consecutiveFailures());
              throw new IllegalStateException("down");
            },
            Duration.ZERO,
            SLOW);
    self.set(loop);
    loop.start();
    for (int failures = 0; failures < 3; failures++) {
      loop.runSoon();
      assertEquals(failures, (int) next(seen), "failures before round " + (failures + 1));
    }
    loop.close();
    loop.runSoon();
    assertNull(seen.poll(50, TimeUnit.MILLISECONDS));
  }

  @Test
  @DisplayName("a negative period is refused naming the loop")
  void negative() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new WorkerLoop("x", () -> {}, Duration.ofSeconds(-1), SLOW));
    assertTrue(e.getMessage().contains("x"));
  }
}
