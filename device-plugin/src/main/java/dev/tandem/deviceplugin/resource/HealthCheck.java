package dev.tandem.deviceplugin.resource;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Re-reads a resource's health on a worker thread and records it in its table. */
public final class HealthCheck {

  private static final Logger LOG = LoggerFactory.getLogger(HealthCheck.class);

  private final Vertx vertx;
  private final DeviceTable table;

  public HealthCheck(Vertx vertx, DeviceTable table) {
    this.vertx = vertx;
    this.table = table;
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
              }
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
