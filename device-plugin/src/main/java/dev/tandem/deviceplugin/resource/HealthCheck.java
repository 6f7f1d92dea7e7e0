package dev.tandem.deviceplugin.resource;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Re-reads a resource's health on a worker thread and records it in its table. */
public final class HealthCheck {

  private static final Logger LOG = LoggerFactory.getLogger(HealthCheck.class);

  private final Vertx vertx;
  private final DeviceTable table;
  private final BiConsumer<String, Boolean> transitions;
  private volatile boolean read;

  public HealthCheck(Vertx vertx, DeviceTable table) {
    this(vertx, table, (key, healthy) -> {});
  }

  /**
   * @param transitions told each health key that turned healthy (true) or unhealthy (false) after
   *     the first reading
   */
  public HealthCheck(Vertx vertx, DeviceTable table, BiConsumer<String, Boolean> transitions) {
    this.vertx = vertx;
    this.table = table;
    this.transitions = transitions;
  }

  /**
   * One check now; completes when the table is updated.
   *
   * @return the health keys whose health changed
   */
  public Future<List<String>> run() {
    ResourceDevices devices = table.devices();
    return vertx
        .executeBlocking(devices::readHealth, false)
        .map(
            reading -> {
              List<String> changed = table.update(reading);
              for (String key : changed) {
                LOG.info("{}", devices.healthChange(key, reading.get(key)));
                if (read) {
                  transitions.accept(key, reading.get(key));
                }
              }
              read = true;
              return changed;
            });
  }

  /** Runs a check every {@code intervalMs}; returns the timer id. */
  public long every(long intervalMs) {
    return vertx.setPeriodic(
        intervalMs,
        id ->
            run()
                .onFailure(
                    e ->
                        LOG.warn(
                            "{} health check failed: {}",
                            table.devices().resourceName(),
                            e.toString())));
  }
}
