package dev.tandem.deviceplugin.cni;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.deviceplugin.allocate.DeviceHandOff;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.inventory.PluginDevice;
import dev.tandem.deviceplugin.preferred.HeldDevices;
import dev.tandem.deviceplugin.preferred.PodResourcesSource;
import dev.tandem.kit.files.HostDirectory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands granted devices to CNI plugins: on Allocate, a {@link DeviceInfo} file per device, written
 * before the kubelet gets its answer; then a reconcile against the kubelet's PodResources List (the
 * kubelet never tells a plugin that a device was released), at start and every interval, which
 * removes the files of devices no container holds and writes again those of devices containers hold
 * whose file is missing (a restart, a wiped directory). A device granted less than {@link #GRACE}
 * before the List was asked for keeps its file: the kubelet records an allocation only after
 * Allocate answers. On stop, the plugin's files are removed, as the specification asks. Only files
 * named for this plugin's resource and devices are ever touched. File I/O runs on worker threads.
 */
public final class DeviceInfoHandOff implements DeviceHandOff {

  /** How long a device just granted keeps its file though PodResources does not list it yet. */
  public static final Duration GRACE = Duration.ofSeconds(10);

  private static final Logger LOG = LoggerFactory.getLogger(DeviceInfoHandOff.class);

  private static final String SETTING = "--device-info-dir (TANDEM_PLUGIN_DEVICE_INFO_DIR)";

  private final Vertx vertx;
  private final String node;
  private final String resourceName;
  private final HostDirectory dir;
  private final PodResourcesSource podResources;
  private final Clock clock;
  private final Map<String, DeviceInfo> byId = new HashMap<>();
  private final Map<String, String> idByFile = new HashMap<>();
  private final Map<String, Instant> grantedAt = new ConcurrentHashMap<>();
  private final Object files = new Object();
  private volatile boolean restarted = true;

  /** Set by {@link #stop} under {@code files}: no file is written after it. */
  private boolean stopped;

  private long timer = -1;

  /** What one reconcile did: device ids whose file it removed, and whose file it wrote again. */
  public record Sweep(List<String> removed, List<String> restored) {}

  public DeviceInfoHandOff(
      Vertx vertx, Inventory inventory, Path dir, PodResourcesSource podResources, Clock clock) {
    this.vertx = vertx;
    this.node = inventory.machine().nodeName();
    this.resourceName = inventory.config().resourceName();
    this.dir =
        new HostDirectory(
            dir,
            "device-info",
            "Mount the host's "
                + dir
                + " read-write into the device plugin (a hostPath volume of type"
                + " DirectoryOrCreate, as the DaemonSet of manifests/ and the chart do), or set "
                + SETTING
                + " to off to hand no device information to CNI plugins");
    this.podResources = podResources;
    this.clock = clock;
    for (PluginDevice d : inventory.devices()) {
      DeviceInfo.of(resourceName, d.id(), d.hca())
          .ifPresent(
              info -> {
                byId.put(d.id(), info);
                idByFile.put(info.fileName(), d.id());
              });
    }
  }

  public Path path() {
    return dir.path();
  }

  /**
   * Creates the directory when it is missing (the specification asks the device plugin to), then
   * proves that a file can be created in it. Blocking: at start, on a worker thread.
   *
   * @throws dev.tandem.kit.files.HostFileException naming the directory, the setting and the fix
   */
  public void prepare() {
    dir.prepare();
  }

  @Override
  public Future<Void> granted(List<String> deviceIds) {
    Instant now = clock.instant();
    return vertx.executeBlocking(
        () -> {
          for (String id : deviceIds) {
            DeviceInfo info = byId.get(id);
            if (info != null) {
              synchronized (files) {
                grantedAt.put(id, now);
                write(id, info);
              }
            }
          }
          return null;
        },
        false);
  }

  /** One reconcile against PodResources now; fails when PodResources cannot be read. */
  public Future<Sweep> reconcile() {
    Instant asked = clock.instant();
    return podResources
        .list()
        .compose(held -> vertx.executeBlocking(() -> sweep(heldIds(held), asked), false))
        .onSuccess(this::log);
  }

  /** Reconciles now and then every {@code interval}, until {@link #stop}. */
  public void every(Duration interval) {
    reconcileLogged();
    timer = vertx.setPeriodic(interval.toMillis(), id -> reconcileLogged());
  }

  /** Stops reconciling and removes this plugin's files; a reconcile still in flight writes none. */
  public Future<Void> stop() {
    vertx.cancelTimer(timer);
    return vertx.executeBlocking(
        () -> {
          synchronized (files) {
            stopped = true;
            for (String name : dir.present(idByFile.keySet())) {
              dir.remove(name);
            }
          }
          return null;
        },
        false);
  }

  /**
   * Removes the files of devices neither {@code held} nor granted since {@code asked} minus {@link
   * #GRACE}; writes those of held devices that are missing. Blocking.
   */
  Sweep sweep(Set<String> held, Instant asked) {
    Instant recent = asked.minus(GRACE);
    Set<String> present = dir.present(idByFile.keySet());
    List<String> removed = new ArrayList<>();
    for (String name : present) {
      String id = idByFile.get(name);
      if (!held.contains(id)) {
        synchronized (files) {
          Instant t = grantedAt.get(id);
          if ((t == null || !t.isAfter(recent)) && dir.remove(name)) {
            removed.add(id);
          }
        }
      }
    }
    List<String> restored = new ArrayList<>();
    for (String id : held) {
      DeviceInfo info = byId.get(id);
      if (info != null && !present.contains(info.fileName())) {
        synchronized (files) {
          // a reconcile whose PodResources answer came after stop must not bring files back
          if (stopped) {
            break;
          }
          write(id, info);
        }
        restored.add(id);
      }
    }
    grantedAt.values().removeIf(t -> !t.isAfter(recent));
    return new Sweep(removed, restored);
  }

  private void write(String id, DeviceInfo info) {
    dir.write(
        info.fileName(),
        info.json().getBytes(StandardCharsets.UTF_8),
        resourceName + " device " + id + " on node " + node);
  }

  private Set<String> heldIds(List<HeldDevices> held) {
    return held.stream()
        .filter(h -> h.resource().equals(resourceName))
        .flatMap(h -> h.deviceIds().stream())
        .collect(Collectors.toSet());
  }

  private void reconcileLogged() {
    reconcile()
        .onFailure(
            e ->
                LOG.debug(
                    "device-info reconcile of {} skipped: PodResources or {} unavailable: {}",
                    resourceName,
                    dir.path(),
                    e.toString()));
  }

  private void log(Sweep s) {
    boolean first = restarted;
    restarted = false;
    if (!s.removed().isEmpty()) {
      String what = "removed the device-info files of {} {} devices no container holds{}: {}";
      Object[] args = {
        s.removed().size(),
        resourceName,
        first ? " (left from before this plugin started)" : "",
        s.removed()
      };
      if (first) {
        LOG.info(what, args);
      } else {
        LOG.debug(what, args);
      }
    }
    if (!s.restored().isEmpty()) {
      LOG.info(
          "wrote again the missing device-info files of {} {} devices containers hold: {}",
          s.restored().size(),
          resourceName,
          s.restored());
    }
  }
}
