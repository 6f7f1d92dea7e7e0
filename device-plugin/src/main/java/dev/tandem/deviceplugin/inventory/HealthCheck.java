package dev.tandem.deviceplugin.inventory;

import dev.tandem.topology.model.Device;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads port states and uverbs devices on a worker thread and records them in the table. A
 * device whose port sysfs cannot tell keeps the state discovery saw.
 */
public final class HealthCheck {

  private static final Logger LOG = LoggerFactory.getLogger(HealthCheck.class);

  private final Vertx vertx;
  private final DeviceTable table;
  private final HealthProbe probe;
  private final UverbsLocator uverbs;

  public HealthCheck(Vertx vertx, DeviceTable table, HealthProbe probe, UverbsLocator uverbs) {
    this.vertx = vertx;
    this.table = table;
    this.probe = probe;
    this.uverbs = uverbs;
  }

  /** One check now; completes when the table is updated. */
  public Future<List<String>> run() {
    List<Device> hcas = table.inventory().hcas();
    return vertx
        .executeBlocking(() -> read(hcas), false)
        .map(
            r -> {
              List<String> changed = table.update(r.health, r.uverbs);
              for (String ib : changed) {
                LOG.info(
                    "HCA {} on node {} is now {}",
                    ib,
                    table.inventory().machine().nodeName(),
                    r.health.get(ib)
                        ? DeviceTable.HEALTHY
                        : DeviceTable.UNHEALTHY + " (port not ACTIVE)");
              }
              return changed;
            });
  }

  /** Runs a check every {@code intervalMs}; returns the timer id. */
  public long every(long intervalMs) {
    return vertx.setPeriodic(
        intervalMs, id -> run().onFailure(e -> LOG.warn("health check failed: {}", e.toString())));
  }

  private record Reading(Map<String, Boolean> health, Map<String, String> uverbs) {}

  private Reading read(List<Device> hcas) {
    Map<String, Boolean> health = new HashMap<>();
    Map<String, String> verbs = new HashMap<>();
    for (Device h : hcas) {
      String ib = h.hca().ibDevice();
      boolean discovered = h.healthy() && h.hca().portUsable();
      health.put(ib, probe.healthy(ib).orElse(discovered));
      String u = h.hca().uverbs() != null ? h.hca().uverbs() : uverbs.uverbs(ib).orElse(null);
      if (u != null) {
        verbs.put(ib, u);
      }
    }
    return new Reading(health, verbs);
  }
}
