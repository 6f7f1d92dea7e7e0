package dev.tandem.deviceplugin.cli;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.container.DeviceInfo;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.node.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The device plugin's settings, each declared once (flag, environment variable, the JSON file's key
 * where it has one): the node settings every node daemon shares ({@link NodeSettings}) and the
 * plugin's own. {@link PluginConfig} is built from them. The file's other keys (mode, selectors,
 * gpu, …) are {@code ResourceConfig}'s.
 */
public final class PluginSettings {

  /** The value of {@link #DEVICE_INFO_DIR} and {@link #DROP_IN_CONFIG} that turns them off. */
  public static final String OFF = "off";

  public static final Setting<Path> PLUGIN_DIR =
      Setting.of("--plugin-dir", "DIR", Parsers.path())
          .env("TANDEM_PLUGIN_DIR")
          .defaultValue("/var/lib/kubelet/device-plugins")
          .help("kubelet device-plugin directory");
  public static final Setting<Path> KUBELET_SOCKET =
      Setting.of("--kubelet-socket", "PATH", Parsers.path())
          .env("TANDEM_PLUGIN_KUBELET_SOCKET")
          .defaultText("`<plugin-dir>/kubelet.sock`")
          .help("kubelet registration socket");
  public static final Setting<String> ENDPOINT =
      Setting.of("--endpoint", "NAME", Parsers.text())
          .env("TANDEM_PLUGIN_ENDPOINT")
          .defaultValue("tandem-rdma.sock")
          .help(
              "the stem of this plugin's socket file names in `<plugin-dir>`: `NAME.sock` serves"
                  + " on `NAME-<12 hex digits>.sock`, a new name per server"
                  + " ([device-plugin.md](device-plugin.md#lifecycle))");
  public static final Setting<String> GPU_ENDPOINT =
      Setting.of("--gpu-endpoint", "NAME", Parsers.text())
          .env("TANDEM_PLUGIN_GPU_ENDPOINT")
          .defaultValue("tandem-gpu.sock")
          .help(
              "joint mode: the stem of the `nvidia.com/gpu` plugin's socket file names in"
                  + " `<plugin-dir>` (as `--endpoint`)");
  public static final Setting<String> RESOURCE_NAME =
      Setting.of("--resource-name", "NAME", ResourceNames::extended)
          .env("TANDEM_PLUGIN_RESOURCE_NAME")
          .fileKey("resourceName")
          .defaultValue(ResourceNames.HCA)
          .help("extended resource to register");
  public static final Setting<Path> CONFIG =
      Setting.of("--config", "FILE", Parsers.path())
          .env("TANDEM_PLUGIN_CONFIG")
          .defaultText("`--drop-in-config` when that file exists, else none (mode `hca`)")
          .help("JSON configuration, below");
  public static final Setting<Path> DROP_IN_CONFIG =
      Setting.of("--drop-in-config", "FILE", PluginSettings::pathOrOff)
          .env("TANDEM_PLUGIN_DROP_IN_CONFIG")
          .defaultValue("/k8s-rdma-sriov-dev-plugin/config.json")
          .help(
              "read as the configuration when `--config` names none and this file exists: where"
                  + " the k8s-rdma-sriov-dev-plugin's DaemonSet mounts its ConfigMap, so that"
                  + " mount works unchanged (docs/device-plugin.md, Migrating); `off` reads none");
  public static final Setting<Boolean> NO_KUBE =
      Setting.toggle("--no-kube", true)
          .env("TANDEM_PLUGIN_NO_KUBE")
          .defaultValue("false")
          .defaultText("off")
          .help(
              "no API-server lookup of pending pods' plans, nor of the Node's labels (a"
                  + " `--rail-map` entry then selects the node only without a `nodeSelector`)");
  public static final Setting<Long> LOOKUP_TIMEOUT_MS =
      Setting.of("--lookup-timeout-ms", "N", Parsers.longRange(1, 600_000))
          .env("TANDEM_PLUGIN_LOOKUP_TIMEOUT_MS")
          .defaultValue("1000")
          .help("bound on each API-server and PodResources call, in milliseconds");
  public static final Setting<Duration> HEALTH_INTERVAL =
      Setting.of("--health-interval-seconds", "N", Parsers.seconds(1, 86_400))
          .env("TANDEM_PLUGIN_HEALTH_INTERVAL_SECONDS")
          .fileKey("healthCheckSeconds")
          .defaultValue("10")
          .help("port-state re-check interval");
  public static final Setting<Integer> OPS_PORT =
      Setting.of("--ops-port", "N", Parsers.intRange(0, 65_535))
          .env("TANDEM_PLUGIN_OPS_PORT")
          .defaultValue("9402")
          .help(
              "port of `/healthz`, `/readyz` (ready once registered with the kubelet) and"
                  + " `/metrics`");

  public static final Setting<Path> DEVICE_INFO_DIR =
      Setting.of("--device-info-dir", "DIR", PluginSettings::pathOrOff)
          .env("TANDEM_PLUGIN_DEVICE_INFO_DIR")
          .defaultValue(DeviceInfo.SPEC_DIRECTORY)
          .help(
              "where Allocate writes a Device Information file per device granted (NPWG Device"
                  + " Information Specification; read by Multus, SR-IOV CNI and the RDMA CNI),"
                  + " created if missing; `off` writes none");
  public static final Setting<Duration> DEVICE_INFO_INTERVAL =
      Setting.of("--device-info-reconcile-seconds", "N", Parsers.seconds(1, 86_400))
          .env("TANDEM_PLUGIN_DEVICE_INFO_RECONCILE_SECONDS")
          .defaultValue("10")
          .help(
              "how often the Device Information files are checked against PodResources: those of"
                  + " devices no container holds are removed");

  /**
   * The plugin's settings; the file {@code --config} names (else the drop-in file, when it exists)
   * gives two of them.
   */
  public static final Settings SETTINGS =
      Settings.of(
              """
              usage: java -jar device-plugin.jar [flags]

              Kubelet device plugin for RDMA HCAs (resource rdma/hca by default). Every flag can also be
              set through the environment variable in brackets; flags win over the environment, which
              wins over the --config file.
              """,
              List.of(
                  PLUGIN_DIR,
                  KUBELET_SOCKET,
                  ENDPOINT,
                  GPU_ENDPOINT,
                  RESOURCE_NAME,
                  CONFIG,
                  DROP_IN_CONFIG,
                  NodeSettings.NODE_NAME,
                  NodeSettings.HWLOC_XML,
                  NodeSettings.NCCL_TOPO,
                  NodeSettings.SYSFS_ROOT,
                  NodeSettings.SYSFS_ONLY,
                  NodeSettings.RAIL_MAP,
                  NO_KUBE,
                  NodeSettings.KUBECONFIG,
                  NodeSettings.POD_RESOURCES_SOCKET,
                  LOOKUP_TIMEOUT_MS,
                  HEALTH_INTERVAL,
                  OPS_PORT,
                  DEVICE_INFO_DIR,
                  DEVICE_INFO_INTERVAL,
                  NodeSettings.NVML_LIBRARY))
          .configFile(CONFIG, DROP_IN_CONFIG)
          .rules(NodeSettings.ONE_SOURCE);

  private PluginSettings() {}

  /** A path, or null for {@code off}. */
  private static Path pathOrOff(String text) {
    return OFF.equals(text) ? null : Path.of(text);
  }
}
