package dev.tandem.discovery;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a discovery's notes: each at INFO (warnings at WARN) the first time this log sees it, at
 * DEBUG when a periodic rediscovery repeats it. Each source owns one, so the memory lives as long
 * as the caller keeps the source.
 */
final class DiscoveryLog {

  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryLog.class);

  // rediscoveries run on whichever worker thread is free
  private final Set<String> seen = ConcurrentHashMap.newKeySet();

  /** Logs the notes and returns those this log had not seen before. */
  List<String> log(Discovery d) {
    List<String> fresh = new ArrayList<>();
    for (String n : d.notes()) {
      if (!seen.add(n)) {
        LOG.debug("{}", n);
      } else {
        fresh.add(n);
        if (d.warnings().contains(n)) {
          LOG.warn("{}", n);
        } else {
          LOG.info("{}", n);
        }
      }
    }
    return fresh;
  }
}
