package dev.tandem.deviceplugin.preferred.joint;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The reservations shared by the two plugin instances of one process. A reservation lives until
 * both of its resources have been allocated, or for the TTL (a container whose second resource
 * never comes, a pod deleted mid-admission). Thread-safe.
 */
final class Reservations {

  private final Clock clock;
  private final Duration ttl;
  private final List<Reservation> live = new ArrayList<>();

  Reservations(Clock clock, Duration ttl) {
    this.clock = clock;
    this.ttl = ttl;
  }

  Instant now() {
    return clock.instant();
  }

  synchronized void add(Reservation r) {
    expire();
    live.add(r);
  }

  /** The oldest live reservation matching, after expiring old ones. */
  synchronized Optional<Reservation> oldest(Predicate<Reservation> p) {
    expire();
    return live.stream().filter(p).findFirst();
  }

  synchronized List<Reservation> all() {
    expire();
    return List.copyOf(live);
  }

  synchronized void remove(Reservation r) {
    live.remove(r);
  }

  synchronized int size() {
    expire();
    return live.size();
  }

  private void expire() {
    Instant limit = clock.instant().minus(ttl);
    live.removeIf(r -> r.created.isBefore(limit));
  }
}
