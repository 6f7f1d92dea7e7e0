package dev.tandem.deviceplugin.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The device plugin's command line. Every flag takes {@code --flag value} or {@code --flag=value};
 * {@code --no-kube} and {@code --help} take none.
 */
public record PluginFlags(
    Path pluginDir,
    Path kubeletSocket,
    String endpoint,
    String gpuEndpoint,
    String resourceName,
    Path config,
    String nodeName,
    Path hwlocXml,
    Path sysfsRoot,
    Path ncclTopo,
    boolean noKube,
    Path kubeconfig,
    Path podResourcesSocket,
    long lookupTimeoutMs,
    Integer healthIntervalSeconds,
    boolean help) {

  public static final Path DEFAULT_PLUGIN_DIR = Path.of("/var/lib/kubelet/device-plugins");
  public static final Path DEFAULT_POD_RESOURCES =
      Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");
  public static final String DEFAULT_ENDPOINT = "tandem-rdma.sock";
  public static final String DEFAULT_GPU_ENDPOINT = "tandem-gpu.sock";

  private static final Set<String> VALUED =
      Set.of(
          "--plugin-dir",
          "--kubelet-socket",
          "--endpoint",
          "--gpu-endpoint",
          "--resource-name",
          "--config",
          "--node-name",
          "--hwloc-xml",
          "--sysfs-root",
          "--nccl-topo",
          "--kubeconfig",
          "--pod-resources-socket",
          "--lookup-timeout-ms",
          "--health-interval-seconds");
  private static final Set<String> SWITCHES = Set.of("--no-kube", "--help", "-h");

  public static final String USAGE =
      """
      usage: java -jar device-plugin.jar [flags]

      Kubelet device plugin for RDMA HCAs (resource rdma/hca by default).

        --plugin-dir DIR            kubelet device-plugin directory (default /var/lib/kubelet/device-plugins)
        --kubelet-socket PATH       kubelet registration socket (default <plugin-dir>/kubelet.sock)
        --endpoint NAME             this plugin's socket file name in <plugin-dir> (default tandem-rdma.sock)
        --gpu-endpoint NAME         joint mode: the GPU plugin's socket file name in <plugin-dir> (default tandem-gpu.sock)
        --resource-name NAME        extended resource to register (default: the config's, else rdma/hca)
        --config FILE               JSON config, e.g. {"mode":"hca"}; modes hca, sriov, shared;
                                    {"gpu":{"enabled":true}} also serves nvidia.com/gpu (joint mode)
        --node-name NAME            this node's name (default $NODE_NAME, else the host name)
        --hwloc-xml FILE            read the topology from an hwloc XML export instead of this machine
        --sysfs-root DIR            directory /sys and /proc resolve against (default /)
        --nccl-topo FILE            read the topology from an NCCL topology file
        --no-kube                   no API-server lookup of pending pods' plans
        --kubeconfig FILE           kubeconfig for the API server (default: in-cluster, $KUBECONFIG, ~/.kube/config)
        --pod-resources-socket PATH kubelet PodResources socket (default /var/lib/kubelet/pod-resources/kubelet.sock)
        --lookup-timeout-ms N       bound on each API-server and PodResources call (default 1000)
        --health-interval-seconds N port-state re-check interval (default: the config's, else 10)
        --help                      this text
      """;

  /**
   * @throws UsageException naming an unknown flag, a missing value or a bad number
   */
  public static PluginFlags parse(String[] args, Map<String, String> env) {
    Map<String, String> v = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (SWITCHES.contains(arg)) {
        v.put(arg.equals("-h") ? "--help" : arg, "true");
      } else if (VALUED.contains(name)) {
        if (arg.contains("=")) {
          v.put(name, arg.substring(arg.indexOf('=') + 1));
        } else if (i + 1 < args.length) {
          v.put(name, args[++i]);
        } else {
          throw new UsageException("flag " + name + " needs a value");
        }
      } else {
        throw new UsageException("unknown flag " + arg + " (see --help)");
      }
    }
    Path dir = Path.of(v.getOrDefault("--plugin-dir", DEFAULT_PLUGIN_DIR.toString()));
    return new PluginFlags(
        dir,
        Path.of(v.getOrDefault("--kubelet-socket", dir.resolve("kubelet.sock").toString())),
        v.getOrDefault("--endpoint", DEFAULT_ENDPOINT),
        v.getOrDefault("--gpu-endpoint", DEFAULT_GPU_ENDPOINT),
        v.get("--resource-name"),
        path(v, "--config"),
        v.getOrDefault("--node-name", env.getOrDefault("NODE_NAME", hostName(env))),
        path(v, "--hwloc-xml"),
        path(v, "--sysfs-root"),
        path(v, "--nccl-topo"),
        v.containsKey("--no-kube"),
        path(v, "--kubeconfig"),
        Path.of(v.getOrDefault("--pod-resources-socket", DEFAULT_POD_RESOURCES.toString())),
        number(v, "--lookup-timeout-ms", 1000),
        v.containsKey("--health-interval-seconds")
            ? (int) number(v, "--health-interval-seconds", 10)
            : null,
        v.containsKey("--help"));
  }

  private static Path path(Map<String, String> v, String flag) {
    return v.containsKey(flag) ? Path.of(v.get(flag)) : null;
  }

  private static long number(Map<String, String> v, String flag, long dflt) {
    String s = v.get(flag);
    if (s == null) {
      return dflt;
    }
    try {
      long n = Long.parseLong(s);
      if (n < 1) {
        throw new UsageException(flag + " must be at least 1, got " + s);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new UsageException(flag + " needs a whole number, got '" + s + "'");
    }
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
