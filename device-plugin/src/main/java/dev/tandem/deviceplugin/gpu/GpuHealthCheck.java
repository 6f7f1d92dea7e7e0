package dev.tandem.deviceplugin.gpu;

import dev.tandem.topology.model.Device;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads GPU health on a worker thread: every probe that can tell must say healthy (procfs/sysfs,
 * and NVML when loaded); a GPU no probe can tell about keeps the health discovery saw.
 */
public final class GpuHealthCheck {

  private static final Logger LOG = LoggerFactory.getLogger(GpuHealthCheck.class);

  private final Vertx vertx;
  private final GpuTable table;
  private final List<GpuHealthProbe> probes;

  public GpuHealthCheck(Vertx vertx, GpuTable table, List<GpuHealthProbe> probes) {
    this.vertx = vertx;
    this.table = table;
    this.probes = List.copyOf(probes);
  }

  public Future<List<String>> run() {
    return vertx
        .executeBlocking(this::read, false)
        .map(
            reading -> {
              List<String> changed = table.update(reading);
              for (String id : changed) {
                LOG.info(
                    "GPU {} on node {} is now {}",
                    id,
                    table.machine().nodeName(),
                    reading.get(id) ? "Healthy" : "Unhealthy (the NVIDIA driver does not show it)");
              }
              return changed;
            });
  }

  public long every(long intervalMs) {
    return vertx.setPeriodic(
        intervalMs,
        id -> run().onFailure(e -> LOG.warn("GPU health check failed: {}", e.toString())));
  }

  Map<String, Boolean> read() {
    Map<String, Boolean> out = new HashMap<>();
    for (Device g : table.gpus()) {
      Boolean verdict = null;
      for (GpuHealthProbe p : probes) {
        Optional<Boolean> h = p.healthy(g);
        if (h.isPresent()) {
          verdict = (verdict == null || verdict) && h.get();
        }
      }
      out.put(g.id(), verdict != null ? verdict : g.healthy());
    }
    return out;
  }
}
