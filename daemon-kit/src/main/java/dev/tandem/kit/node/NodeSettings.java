package dev.tandem.kit.node;

import dev.tandem.kit.config.Parser;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The settings every daemon on a node shares (node-topology-agent's {@code run} and {@code dump},
 * the device plugin, and the next node daemon), each declared here once: flag, environment
 * variable, parser, default, help. A daemon lists them in its own table with {@link #ONE_SOURCE}; a
 * daemon that cannot run without its node's name lists {@code NODE_NAME.asRequired()} (the kit's
 * lookup by flag makes that variant answer for {@link #NODE_NAME}). {@link #localNode} reads the
 * discovery ones, the same way for every daemon.
 */
public final class NodeSettings {

  /** Where the kubelet serves PodResources under its default root directory. */
  public static final String DEFAULT_POD_RESOURCES_SOCKET =
      "/var/lib/kubelet/pod-resources/kubelet.sock";

  // tandem-api's DnsNames holds this rule for the other modules; daemon-kit depends on none of them
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private static final Parser<String> NODE =
      text -> {
        if (text.length() > 253 || !DNS_SUBDOMAIN.matcher(text).matches()) {
          throw new IllegalArgumentException("is not a valid node name (lowercase DNS subdomain)");
        }
        return text;
      };

  public static final Setting<String> NODE_NAME =
      Setting.of("--node-name", "NAME", NODE)
          .env("NODE_NAME")
          .defaultText("`$HOSTNAME`, else the host name")
          .help(
              "the node this runs on (set it from spec.nodeName with the downward API); a"
                  + " lowercase DNS subdomain");
  public static final Setting<Path> HWLOC_XML =
      Setting.of("--hwloc-xml", "FILE", Parsers.existingFile())
          .env("TANDEM_HWLOC_XML")
          .defaultText("this machine")
          .help("read this hwloc XML export (through libhwloc) instead of the machine");
  public static final Setting<Path> NCCL_TOPO =
      Setting.of("--nccl-topo", "FILE", Parsers.existingFile())
          .env("TANDEM_NCCL_TOPO")
          .help(
              "take the GPU/NIC grouping from this NCCL topology file (cloud VMs that hide the PCIe"
                  + " tree); the names (ibverbs names, GPU UUIDs) from sysfs and procfs under"
                  + " `--sysfs-root`");
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", "DIR", Parsers.existingDirectory())
          .env("TANDEM_SYSFS_ROOT")
          .defaultValue("/")
          .help(
              "the host root `/sys` and `/proc` resolve against, for discovery and everything else"
                  + " read there (the host's `/` mounted elsewhere, or a captured tree: `DIR/sys`,"
                  + " `DIR/proc`); the libraries still read this machine");
  public static final Setting<Boolean> SYSFS_ONLY =
      Setting.toggle("--sysfs-only", true)
          .env("TANDEM_SYSFS_ONLY")
          .defaultValue("false")
          .defaultText("off")
          .help(
              "read the machine from sysfs under `--sysfs-root` only, without libhwloc/libibverbs");
  public static final Setting<Path> KUBECONFIG =
      Setting.of("--kubeconfig", "FILE", Parsers.existingFile())
          .env("KUBECONFIG")
          .defaultText("in-cluster service account, else `~/.kube/config`")
          .help("kubeconfig for the API server");
  public static final Setting<Path> POD_RESOURCES_SOCKET =
      Setting.of("--pod-resources-socket", "PATH", Parsers.path())
          .env("TANDEM_POD_RESOURCES_SOCKET")
          .defaultValue(DEFAULT_POD_RESOURCES_SOCKET)
          .help("the kubelet's PodResources socket");

  /**
   * The file name NVIDIA's driver installs NVML under (every driver package ships the versioned
   * name; the bare {@code .so} comes with development packages only). topology-discovery's {@code
   * Nvml.LIBRARY} is the same name, and a test holds them equal.
   */
  public static final String DEFAULT_NVML_LIBRARY = "libnvidia-ml.so.1";

  public static final Setting<String> NVML_LIBRARY =
      Setting.of("--nvml-library", "FILE", Parsers.text())
          .env("TANDEM_NVML_LIBRARY")
          .defaultValue(DEFAULT_NVML_LIBRARY)
          .help(
              "NVIDIA's NVML library (a name the loader finds, or a path): the agent loads it when"
                  + " the kubelet reports MIG devices, to map each to its GPU; the device plugin in"
                  + " joint mode, for GPU health (a GPU NVML cannot find is unhealthy; a library"
                  + " that does not load is a note)");

  public static final Setting<Path> RAIL_MAP =
      Setting.of("--rail-map", "FILE", Parsers.existingFile())
          .env("TANDEM_RAIL_MAP")
          .defaultText("rails by PCI order")
          .help(
              "the operator's rail mapping, a JSON array of `{nodeSelector, rails}` entries (rail"
                  + " by ibverbs name, netdev or PCI address; docs/rails.md), read again at every"
                  + " rediscovery; the node takes the first entry its labels match, else its HCAs'"
                  + " rails follow their PCI order");

  /** At most one way of reading the machine besides the default (the libraries, then sysfs). */
  public static final Rule ONE_SOURCE = Rule.atMostOne(HWLOC_XML, NCCL_TOPO, SYSFS_ONLY);

  private NodeSettings() {}

  /**
   * The node and how its machine is read, from a table that lists {@link #NODE_NAME} (or its
   * required variant), {@link #HWLOC_XML}, {@link #NCCL_TOPO}, {@link #SYSFS_ROOT} and {@link
   * #SYSFS_ONLY}. Without a node name: {@code HOSTNAME} in {@code env}, else this machine's host
   * name.
   */
  public static LocalNode localNode(Resolved values, Map<String, String> env) {
    String name = values.get(NODE_NAME);
    return new LocalNode(
        name != null ? name : hostName(env),
        values.get(HWLOC_XML),
        values.get(NCCL_TOPO),
        values.get(SYSFS_ROOT),
        values.get(SYSFS_ONLY));
  }

  private static String hostName(Map<String, String> env) {
    String h = env.get("HOSTNAME");
    if (h != null && !h.isBlank()) {
      return h.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "localhost";
    }
  }
}
