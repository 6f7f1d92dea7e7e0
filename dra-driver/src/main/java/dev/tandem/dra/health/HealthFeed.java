package dev.tandem.dra.health;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The pool's health as the driver last determined it, and the subscribers told each new one (the
 * kubelet's health streams). A subscriber is told the latest at once, then each one published
 * after. Thread-safe: published from the driver's rediscovery thread, read by the streams; a
 * subscriber is told in order (never an older health after a newer), and must not block.
 */
public final class HealthFeed {

  private final List<Consumer<PoolHealth>> subscribers = new CopyOnWriteArrayList<>();
  private volatile PoolHealth latest;

  /** Makes {@code health} the latest and tells every subscriber. */
  public synchronized void publish(PoolHealth health) {
    latest = health;
    subscribers.forEach(s -> s.accept(health));
  }

  /**
   * Tells {@code subscriber} the latest health, if any, then each one published.
   *
   * @return undoes the subscription
   */
  public synchronized Runnable subscribe(Consumer<PoolHealth> subscriber) {
    subscribers.add(subscriber);
    if (latest != null) {
      subscriber.accept(latest);
    }
    return () -> subscribers.remove(subscriber);
  }

  /** The latest health, once determined. */
  public Optional<PoolHealth> latest() {
    return Optional.ofNullable(latest);
  }

  /** How many subscribers are told (the kubelet's open health streams). */
  public int subscribers() {
    return subscribers.size();
  }
}
