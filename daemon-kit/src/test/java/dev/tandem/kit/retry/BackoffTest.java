package dev.tandem.kit.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("backoff: doubling, capped, optionally bounded")
class BackoffTest {

  @Test
  @DisplayName(
      "delays double from the initial one and stop at the maximum, even after many failures (agent's publish: 1 s to 60 s)")
  void doublesAndCaps() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
    assertEquals(Duration.ofSeconds(1), b.delay(1));
    assertEquals(Duration.ofSeconds(2), b.delay(2));
    assertEquals(Duration.ofSeconds(32), b.delay(6));
    assertEquals(Duration.ofSeconds(60), b.delay(7));
    assertEquals(Duration.ofSeconds(60), b.delay(10_000));
    assertFalse(b.exhausted(10_000));
  }

  @Test
  @DisplayName("the extender's informer start: 1 s, 2 s, 4 s, 8 s, then every 10 s")
  void informerStart() {
    Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));
    assertEquals(
        "[PT1S, PT2S, PT4S, PT8S, PT10S, PT10S]",
        IntStream.rangeClosed(1, 6).mapToObj(b::delay).toList().toString());
  }

  @Test
  @DisplayName("the plugin's registration: 500 ms doubling to 8 s, giving up after 10 failures")
  void bounded() {
    Backoff b = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(8), 10);
    assertEquals(Duration.ofMillis(500), b.delay(0));
    assertEquals(Duration.ofMillis(500), b.delay(1));
    assertEquals(Duration.ofSeconds(4), b.delay(4));
    assertEquals(Duration.ofSeconds(8), b.delay(9));
    assertFalse(b.exhausted(9));
    assertTrue(b.exhausted(10));
  }

  @Test
  @DisplayName("a maximum below the initial delay, or negative attempts, is rejected")
  void invalid() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)));
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), -1));
  }
}
