package dev.tandem.deviceplugin.cli;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.Nvml;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The device plugin's settings, declared once in the kit (flag, environment variable, the JSON
 * file's key where it has one), and their values resolved flags over environment over file over
 * defaults. The file's other keys (mode, selectors, gpu, …) are {@code PluginConfig}'s.
 *
 * @param pluginDir the kubelet's device-plugin directory
 * @param kubeletSocket the kubelet's registration socket
 * @param endpoint this plugin's socket file name in {@code pluginDir}
 * @param gpuEndpoint joint mode: the GPU plugin's socket file name in {@code pluginDir}
 * @param resourceName the extended resource registered
 * @param config the JSON configuration file read: {@code --config}'s, else {@code dropInConfig}
 *     when that file exists; or null
 * @param dropInConfig where another RDMA plugin's deployment mounts its config, read when {@code
 *     --config} names none; null for {@code off}
 * @param nodeName this node's name
 * @param hwlocXml an hwloc XML export to read instead of this machine, or null
 * @param sysfsRoot the host root {@code /sys} and {@code /proc} resolve against
 * @param ncclTopo an NCCL topology file, or null
 * @param noKube no API-server lookup of pending pods' plans
 * @param kubeconfig the kubeconfig file, or null
 * @param podResourcesSocket the kubelet's PodResources socket
 * @param lookupTimeoutMs bound on each API-server and PodResources call
 * @param healthInterval port-state re-check interval
 * @param opsPort the port of {@code /healthz}, {@code /readyz} and {@code /metrics}
 * @param deviceInfoDir where Device Information files for CNI plugins go; null writes none
 * @param deviceInfoInterval how often those files are reconciled against PodResources
 * @param nvmlLibrary NVIDIA's NVML library, the joint-mode GPU health probe's
 */
public record PluginFlags(
    Path pluginDir,
    Path kubeletSocket,
    String endpoint,
    String gpuEndpoint,
    String resourceName,
    Path config,
    Path dropInConfig,
    String nodeName,
    Path hwlocXml,
    Path sysfsRoot,
    Path ncclTopo,
    boolean noKube,
    Path kubeconfig,
    Path podResourcesSocket,
    long lookupTimeoutMs,
    Duration healthInterval,
    int opsPort,
    Path deviceInfoDir,
    Duration deviceInfoInterval,
    String nvmlLibrary) {

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
          .help("this plugin's socket file name in `<plugin-dir>`");
  public static final Setting<String> GPU_ENDPOINT =
      Setting.of("--gpu-endpoint", "NAME", Parsers.text())
          .env("TANDEM_PLUGIN_GPU_ENDPOINT")
          .defaultValue("tandem-gpu.sock")
          .help("joint mode: the `nvidia.com/gpu` plugin's socket file name in `<plugin-dir>`");
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
      Setting.of("--drop-in-config", "FILE", PluginFlags::pathOrOff)
          .env("TANDEM_PLUGIN_DROP_IN_CONFIG")
          .defaultValue("/k8s-rdma-sriov-dev-plugin/config.json")
          .help(
              "read as the configuration when `--config` names none and this file exists: where"
                  + " the k8s-rdma-sriov-dev-plugin's DaemonSet mounts its ConfigMap, so that"
                  + " mount works unchanged (docs/device-plugin.md, Migrating); `off` reads none");
  public static final Setting<String> NODE_NAME =
      Setting.of("--node-name", "NAME", Parsers.text())
          .env("NODE_NAME")
          .defaultText("`$HOSTNAME`, else the host name")
          .help("this node's name");
  public static final Setting<Path> HWLOC_XML =
      Setting.of("--hwloc-xml", "FILE", Parsers.path())
          .env("TANDEM_HWLOC_XML")
          .defaultText("this machine")
          .help("read the topology from an hwloc XML export");
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", "DIR", Parsers.existingDirectory())
          .env("TANDEM_SYSFS_ROOT")
          .defaultValue("/")
          .help(
              "the host root `/sys` and `/proc` resolve against (uverbs devices, port states,"
                  + " sysfs discovery; joint mode: `/proc/driver/nvidia`)");
  public static final Setting<Path> NCCL_TOPO =
      Setting.of("--nccl-topo", "FILE", Parsers.path())
          .env("TANDEM_NCCL_TOPO")
          .help(
              "take the GPU/NIC grouping from an NCCL topology file (cloud VMs); the names (ibverbs"
                  + " names, GPU UUIDs) still come from `--sysfs-root`");
  public static final Setting<Boolean> NO_KUBE =
      Setting.toggle("--no-kube", true)
          .env("TANDEM_PLUGIN_NO_KUBE")
          .defaultValue("false")
          .defaultText("off")
          .help("no API-server lookup of pending pods' plans");
  public static final Setting<Path> KUBECONFIG =
      Setting.of("--kubeconfig", "FILE", Parsers.path())
          .env("KUBECONFIG")
          .defaultText("in-cluster, else `~/.kube/config`")
          .help("kubeconfig for the API server");
  public static final Setting<Path> POD_RESOURCES_SOCKET =
      Setting.of("--pod-resources-socket", "PATH", Parsers.path())
          .env("TANDEM_POD_RESOURCES_SOCKET")
          .defaultValue("/var/lib/kubelet/pod-resources/kubelet.sock")
          .help("kubelet PodResources socket");
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
      Setting.of("--device-info-dir", "DIR", PluginFlags::pathOrOff)
          .env("TANDEM_PLUGIN_DEVICE_INFO_DIR")
          .defaultValue("/var/run/k8s.cni.cncf.io/devinfo/dp")
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
  public static final Setting<String> NVML_LIBRARY =
      Setting.of("--nvml-library", "FILE", Parsers.text())
          .env("TANDEM_NVML_LIBRARY")
          .defaultValue(Nvml.LIBRARY)
          .help(
              "NVIDIA's NVML library (a name the loader finds, or a path): in joint mode a GPU NVML"
                  + " cannot find by UUID is unhealthy; a library that does not load is a note");

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
                  NODE_NAME,
                  HWLOC_XML,
                  SYSFS_ROOT,
                  NCCL_TOPO,
                  NO_KUBE,
                  KUBECONFIG,
                  POD_RESOURCES_SOCKET,
                  LOOKUP_TIMEOUT_MS,
                  HEALTH_INTERVAL,
                  OPS_PORT,
                  DEVICE_INFO_DIR,
                  DEVICE_INFO_INTERVAL,
                  NVML_LIBRARY))
          .configFile(CONFIG, DROP_IN_CONFIG)
          .rules(Rule.atMostOne(HWLOC_XML, NCCL_TOPO));

  /**
   * Resolves and builds, reading the file through {@link ConfigFile}.
   *
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the flag, the variable and
   *     the bad value
   * @throws dev.tandem.deviceplugin.config.ConfigException for a bad configuration file
   */
  public static PluginFlags parse(String[] args, Map<String, String> env) {
    return from(SETTINGS.resolve(List.of(args), env, ConfigFile::sharedKeys), env);
  }

  /** From resolved settings; {@code env} gives the node name's fallback, {@code HOSTNAME}. */
  public static PluginFlags from(Resolved v, Map<String, String> env) {
    Path dir = v.get(PLUGIN_DIR);
    return new PluginFlags(
        dir,
        v.get(KUBELET_SOCKET, dir.resolve("kubelet.sock")),
        v.get(ENDPOINT),
        v.get(GPU_ENDPOINT),
        v.get(RESOURCE_NAME),
        v.file(),
        v.get(DROP_IN_CONFIG),
        v.get(NODE_NAME) != null ? v.get(NODE_NAME) : hostName(env),
        v.get(HWLOC_XML),
        v.get(SYSFS_ROOT),
        v.get(NCCL_TOPO),
        v.get(NO_KUBE),
        v.get(KUBECONFIG),
        v.get(POD_RESOURCES_SOCKET),
        v.get(LOOKUP_TIMEOUT_MS),
        v.get(HEALTH_INTERVAL),
        v.get(OPS_PORT),
        v.get(DEVICE_INFO_DIR),
        v.get(DEVICE_INFO_INTERVAL),
        v.get(NVML_LIBRARY));
  }

  /** A path, or null for {@code off}. */
  private static Path pathOrOff(String text) {
    return OFF.equals(text) ? null : Path.of(text);
  }

  private static String hostName(Map<String, String> env) {
    String h = env.get("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h;
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
