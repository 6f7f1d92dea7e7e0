package dev.tandem.agent.publish;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for an asynchronous outcome, failing with a message when it does not come. */
public final class Eventually {

  private Eventually() {}

  public static void await(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (condition.getAsBoolean()) {
        return;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
    if (!condition.getAsBoolean()) {
      throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
    }
  }
}
