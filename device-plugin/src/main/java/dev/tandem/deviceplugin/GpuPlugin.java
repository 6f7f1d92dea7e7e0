package dev.tandem.deviceplugin;

import dev.tandem.deviceplugin.config.GpuConfig;
import dev.tandem.deviceplugin.gpu.DriverProcfs;
import dev.tandem.deviceplugin.gpu.GpuAllocateResponder;
import dev.tandem.deviceplugin.gpu.GpuHealthCheck;
import dev.tandem.deviceplugin.gpu.GpuHealthProbe;
import dev.tandem.deviceplugin.gpu.GpuTable;
import dev.tandem.deviceplugin.gpu.Nvml;
import dev.tandem.deviceplugin.grpc.KubeletRegistration;
import dev.tandem.deviceplugin.grpc.TableResource;
import dev.tandem.deviceplugin.inventory.DeviceTable;
import dev.tandem.deviceplugin.lifecycle.PluginLifecycle;
import dev.tandem.deviceplugin.preferred.PendingPodLocator;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.deviceplugin.preferred.joint.JointPolicy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code nvidia.com/gpu} half of joint mode: full GPUs (id = UUID), health from the NVIDIA
 * driver's view, its own socket, registration and lifecycle, and the joint state it shares with the
 * HCA half.
 */
public final class GpuPlugin {

  private static final Logger LOG = LoggerFactory.getLogger(GpuPlugin.class);

  private final Vertx vertx;
  private final PluginSettings settings;
  private final GpuTable table;
  private final GpuHealthCheck health;
  private final JointPolicy joint;
  private final PluginLifecycle lifecycle;
  private final String nvmlNote;
  private long healthTimer = -1;

  GpuPlugin(Vertx vertx, PluginSettings s, DeviceTable hcaTable, KubeletRegistration registration) {
    this.vertx = vertx;
    this.settings = s;
    GpuConfig c = s.config().gpu();
    this.table = new GpuTable(s.machine());
    List<GpuHealthProbe> probes = new ArrayList<>();
    probes.add(new DriverProcfs(s.sysfsRoot()));
    Nvml.Loaded nvml = Nvml.load(Nvml.LIBRARY);
    nvml.nvml().ifPresent(probes::add);
    this.nvmlNote = nvml.note();
    this.health = new GpuHealthCheck(vertx, table, probes);
    PendingPodLocator locator =
        new PendingPodLocator(
            s.machine().nodeName(),
            s.config().resourceName(),
            c.resourceName(),
            s.plans(),
            s.podResources(),
            s.lookupTimeoutMs());
    this.joint =
        new JointPolicy(
            hcaTable.inventory(),
            hcaTable::healthyIds,
            table::healthyIds,
            c.resourceName(),
            locator,
            s.clock(),
            c.reservation());
    TableResource resource =
        new TableResource(
            c.resourceName(),
            "GPUs",
            table,
            new GpuAllocateResponder(table, c.cdi())::allocate,
            joint.side(Side.GPU)::answer,
            r -> joint.allocated(Side.GPU, r));
    this.lifecycle = new PluginLifecycle(vertx, s.gpuSocket(), registration, resource, s.backoff());
  }

  public GpuTable table() {
    return table;
  }

  public GpuHealthCheck health() {
    return health;
  }

  public JointPolicy joint() {
    return joint;
  }

  public PluginLifecycle lifecycle() {
    return lifecycle;
  }

  /** Why NVML is or is not used, e.g. the library is missing. */
  public String nvmlNote() {
    return nvmlNote;
  }

  Future<Void> start() {
    LOG.info(
        "joint mode: serving {} GPUs as {} on {}; {}",
        table.gpus().size(),
        settings.config().gpu().resourceName(),
        settings.gpuSocket().getFileName(),
        nvmlNote);
    return health
        .run()
        .map(
            changed -> {
              healthTimer = health.every(settings.config().healthInterval().toMillis());
              lifecycle.start();
              return null;
            });
  }

  Future<Void> stop() {
    vertx.cancelTimer(healthTimer);
    return lifecycle.stop();
  }
}
