package dev.tandem.agent.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BackoffTest {

  @Test
  @DisplayName(
      "delays double from the initial one and stop at the maximum, even after many failures")
  void doublesAndCaps() {
    Backoff b = Backoff.DEFAULT;
    assertEquals(Duration.ofSeconds(1), b.delay(1));
    assertEquals(Duration.ofSeconds(2), b.delay(2));
    assertEquals(Duration.ofSeconds(32), b.delay(6));
    assertEquals(Duration.ofSeconds(60), b.delay(7));
    assertEquals(Duration.ofSeconds(60), b.delay(10_000));
  }

  @Test
  @DisplayName("a maximum below the initial delay is rejected")
  void invalid() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)));
  }
}
