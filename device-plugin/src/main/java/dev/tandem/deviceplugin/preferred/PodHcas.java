package dev.tandem.deviceplugin.preferred;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which pod's HCAs the devices of a preferred allocation were steered to: Allocate carries device
 * ids only, so GetPreferredAllocation notes, for the ids it chose for a pod's container, the HCAs
 * of that pod's plan, and Allocate reads them back to name the same HCAs in every container of the
 * pod ({@code shared} mode). A note lasts {@link #TTL}; ids of an ended init container reused by an
 * app container keep the pod's note. Thread-safe.
 */
public final class PodHcas {

  /** How long a note lives: admission of a pod's containers takes seconds, not minutes. */
  public static final Duration TTL = Duration.ofMinutes(10);

  private final Clock clock;
  private final Map<String, Note> byDevice = new ConcurrentHashMap<>();

  private record Note(String pod, List<String> hcas, Instant at) {}

  public PodHcas(Clock clock) {
    this.clock = clock;
  }

  /**
   * @param pod {@code namespace/name}
   * @param hcas the pod's planned HCAs (ibverbs names, each once, in plan order)
   * @param deviceIds the device ids chosen for one of its containers
   */
  public void steered(String pod, List<String> hcas, List<String> deviceIds) {
    Instant now = clock.instant();
    byDevice.values().removeIf(n -> n.at().isBefore(now.minus(TTL)));
    Note note = new Note(pod, List.copyOf(hcas), now);
    deviceIds.forEach(id -> byDevice.put(id, note));
  }

  /** The pod's HCAs when every id was steered to one pod within the TTL; else empty. */
  public Optional<List<String>> of(List<String> deviceIds) {
    Instant oldest = clock.instant().minus(TTL);
    Note first = null;
    for (String id : deviceIds) {
      Note n = byDevice.get(id);
      if (n == null || n.at().isBefore(oldest) || (first != null && !first.pod().equals(n.pod()))) {
        return Optional.empty();
      }
      first = first == null ? n : first;
    }
    return first == null ? Optional.empty() : Optional.of(first.hcas());
  }
}
