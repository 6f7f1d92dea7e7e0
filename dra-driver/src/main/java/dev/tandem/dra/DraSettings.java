package dev.tandem.dra;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.InvalidPoolException;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.node.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The DRA driver's settings, each declared once (flag, environment variable, parser, default,
 * help): the node settings every node daemon shares ({@link NodeSettings}, the node name required
 * here) and the driver's own. {@link DraConfig} is built from them.
 */
public final class DraSettings {

  /** Required here: the pool, its slices and their owner are named after the node. */
  public static final Setting<String> NODE_NAME = NodeSettings.NODE_NAME.asRequired();

  public static final Setting<String> DRIVER_NAME =
      Setting.of("--driver-name", "NAME", DraSettings::driverName)
          .env("TANDEM_DRA_DRIVER_NAME")
          .defaultValue(PoolSpec.DEFAULT_DRIVER)
          .help(
              "the DRA driver name the slices, the kubelet registration and DeviceClasses use; a"
                  + " lowercase DNS subdomain of at most 63 characters");
  public static final Setting<Path> PLUGIN_REGISTRY_DIR =
      Setting.of("--plugin-registry-dir", "DIR", Parsers.path())
          .env("TANDEM_DRA_PLUGIN_REGISTRY_DIR")
          .defaultValue("/var/lib/kubelet/plugins_registry")
          .help(
              "the kubelet's plugin watcher directory: the registration socket"
                  + " `<driver-name>-reg.sock` goes there");
  public static final Setting<Path> PLUGIN_DIR =
      Setting.of("--plugin-dir", "DIR", Parsers.path())
          .env("TANDEM_DRA_PLUGIN_DIR")
          .defaultText("`/var/lib/kubelet/plugins/<driver-name>`")
          .help(
              "the driver's own directory, created if missing: the DRA socket `dra.sock` and the"
                  + " checkpoint `checkpoint.json`; not inside `--plugin-registry-dir`");
  public static final Setting<Path> CDI_DIR =
      Setting.of("--cdi-dir", "DIR", Parsers.path())
          .env("TANDEM_DRA_CDI_DIR")
          .defaultValue(CdiDirectory.DEFAULT)
          .help(
              "where Prepare writes a claim's CDI spec for its HCAs (a directory the container"
                  + " runtime reads), created if missing");
  public static final Setting<HcaShape> MODE =
      Setting.of("--mode", "SHAPE", Parsers.enumOf(HcaShape.class))
          .env("TANDEM_DRA_MODE")
          .defaultValue(HcaShape.HCA.toString())
          .help(
              "how HCAs are published (docs/dra.md, Modes): `hca`, one device per HCA; `sriov`,"
                  + " one device per SR-IOV VF with its PF (an HCA without VFs whole); `shared`,"
                  + " one device per HCA that many claims share, `--shares-per-hca` shares each");
  public static final Setting<Integer> SHARES_PER_HCA =
      Setting.of("--shares-per-hca", "N", Parsers.intRange(1, 1_000_000))
          .env("TANDEM_DRA_SHARES_PER_HCA")
          .defaultValue(Integer.toString(DeviceIds.DEFAULT_SHARES_PER_HCA))
          .help(
              "`shared` mode: the capacity `tandem.dev/shares` of each HCA, how many claims may"
                  + " hold it at once (each takes one unless it asks for more); the device"
                  + " plugin's `slotsPerHca` default. Only with `--mode shared`");
  public static final Setting<Path> DEVICE_INFO_DIR =
      Setting.of("--device-info-dir", "DIR", Parsers.path())
          .env("TANDEM_DRA_DEVICE_INFO_DIR")
          .defaultValue(DeviceInfo.SPEC_DIRECTORY)
          .help(
              "`sriov` mode: where Prepare writes a Device Information file per granted VF (NPWG"
                  + " Device Information Specification, as the device plugin does; read by Multus,"
                  + " SR-IOV CNI and the RDMA CNI), created if missing; removed on Unprepare");
  public static final Setting<Boolean> JOINT =
      Setting.toggle("--joint", true)
          .env("TANDEM_DRA_JOINT")
          .defaultValue("false")
          .defaultText("off")
          .help(
              "joint mode: publish the node's GPUs too, beside its HCAs, so that one claim can"
                  + " align a GPU and an HCA under one PCIe switch; Tandem must then be the only"
                  + " publisher of the node's GPUs, and NVIDIA's CDI spec must name every GPU");
  public static final Setting<Duration> REDISCOVER_INTERVAL =
      Setting.of("--rediscover-interval", "SECONDS", Parsers.seconds(0, 86_400))
          .env("TANDEM_DRA_REDISCOVER_INTERVAL")
          .defaultValue("60")
          .help(
              "seconds between rediscoveries of the node while running (a device gone or come,"
                  + " a port down, an RDMA driver unloaded): the slices are published again when"
                  + " the pool changed, and the health stream tells the kubelet; `0`: discover"
                  + " once, at start");
  public static final Setting<Integer> OPS_PORT =
      Setting.of("--ops-port", "N", Parsers.intRange(0, 65_535))
          .env("TANDEM_DRA_OPS_PORT")
          .defaultValue("9403")
          .help(
              "port of `/healthz`, `/readyz` (ready once the slices are published and the kubelet"
                  + " registered the driver) and `/metrics`");

  /** The driver's own directory must not be where the kubelet's plugin watcher looks. */
  static final Rule PLUGIN_DIR_OUTSIDE_REGISTRY =
      v -> {
        Path dir = v.get(PLUGIN_DIR);
        Path registry = v.get(PLUGIN_REGISTRY_DIR);
        return dir != null && dir.normalize().startsWith(registry.normalize())
            ? PLUGIN_DIR.names()
                + " ("
                + dir
                + ") is inside "
                + PLUGIN_REGISTRY_DIR.names()
                + " ("
                + registry
                + "): the kubelet's plugin watcher would take the DRA socket for a registration"
                + " socket; put them apart"
            : null;
      };

  /** Shares are a {@code shared} mode setting: given in another mode it would do nothing. */
  static final Rule SHARES_ONLY_SHARED =
      v ->
          v.isGiven(SHARES_PER_HCA) && v.get(MODE) != HcaShape.SHARED
              ? SHARES_PER_HCA.names()
                  + " is only meaningful with "
                  + MODE.names()
                  + " shared (it is "
                  + v.get(MODE)
                  + "); set the mode to shared or leave the shares out"
              : null;

  /** The driver's settings, its discovery sources exclusive. */
  public static final Settings SETTINGS =
      Settings.of(
              """
              usage: java -jar dra-driver.jar [flags]

              Kubernetes DRA driver (resource.k8s.io/v1): publishes this node's HCAs (and in joint mode
              its GPUs) in ResourceSlices with the PCIe switch they sit under, registers with the
              kubelet, prepares claims (CDI specs). Every flag can also be set through the environment
              variable in brackets; flags win over the environment.
              """,
              List.of(
                  NODE_NAME,
                  DRIVER_NAME,
                  PLUGIN_REGISTRY_DIR,
                  PLUGIN_DIR,
                  CDI_DIR,
                  MODE,
                  SHARES_PER_HCA,
                  DEVICE_INFO_DIR,
                  JOINT,
                  REDISCOVER_INTERVAL,
                  NodeSettings.HWLOC_XML,
                  NodeSettings.NCCL_TOPO,
                  NodeSettings.SYSFS_ROOT,
                  NodeSettings.SYSFS_ONLY,
                  NodeSettings.RAIL_MAP,
                  NodeSettings.KUBECONFIG,
                  OPS_PORT))
          .rules(NodeSettings.ONE_SOURCE, PLUGIN_DIR_OUTSIDE_REGISTRY, SHARES_ONLY_SHARED);

  private DraSettings() {}

  /** The default {@code --plugin-dir} of a driver. */
  static Path defaultPluginDir(String driver) {
    return Path.of("/var/lib/kubelet/plugins", driver);
  }

  /** {@code --plugin-dir}, else the driver's default. */
  static Path pluginDir(Resolved v) {
    return v.get(PLUGIN_DIR, defaultPluginDir(v.get(DRIVER_NAME)));
  }

  private static String driverName(String text) {
    try {
      return new PoolSpec(text, false).driver();
    } catch (InvalidPoolException e) {
      throw new IllegalArgumentException(
          "is not a lowercase DNS subdomain of at most "
              + PoolSpec.MAX_DRIVER_LENGTH
              + " characters",
          e);
    }
  }
}
