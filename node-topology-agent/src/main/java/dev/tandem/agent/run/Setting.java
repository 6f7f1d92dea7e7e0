package dev.tandem.agent.run;

/**
 * One setting of {@code run}: its flag, its environment variable, its default and what it does.
 * Values are strings until {@link RunConfig#fromMap} parses them.
 */
public enum Setting {
  NODE_NAME(
      "--node-name",
      "NODE_NAME",
      null,
      "the node this agent runs on (required; set it from spec.nodeName with the downward API)"),
  HWLOC_XML(
      "--hwloc-xml", "TANDEM_HWLOC_XML", null, "read this hwloc XML export instead of the machine"),
  SYSFS_ROOT(
      "--sysfs-root",
      "TANDEM_SYSFS_ROOT",
      null,
      "read sysfs only, from this root (a host /sys mounted elsewhere or a captured tree)"),
  NCCL_TOPO("--nccl-topo", "TANDEM_NCCL_TOPO", null, "read this NCCL topology file (cloud VMs)"),
  POD_RESOURCES_SOCKET(
      "--pod-resources-socket",
      "TANDEM_POD_RESOURCES_SOCKET",
      "/var/lib/kubelet/pod-resources/kubelet.sock",
      "the kubelet's PodResources socket"),
  RESYNC(
      "--resync",
      "TANDEM_RESYNC_SECONDS",
      "60",
      "seconds between full rediscoveries and republishes"),
  POLL(
      "--poll",
      "TANDEM_POLL_SECONDS",
      "10",
      "seconds between PodResources polls (allocation audit)"),
  PORT("--port", "TANDEM_PORT", "8081", "port of /healthz and /metrics"),
  KUBECONFIG(
      "--kubeconfig",
      "KUBECONFIG",
      null,
      "kubeconfig file; default: the in-cluster service account or ~/.kube/config");

  private final String flag;
  private final String env;
  private final String defaultValue;
  private final String help;

  Setting(String flag, String env, String defaultValue, String help) {
    this.flag = flag;
    this.env = env;
    this.defaultValue = defaultValue;
    this.help = help;
  }

  public String flag() {
    return flag;
  }

  public String env() {
    return env;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public String help() {
    return help;
  }

  /** How an error names it: {@code --resync (TANDEM_RESYNC_SECONDS)}. */
  public String names() {
    return flag + " (" + env + ")";
  }

  static Setting byFlag(String flag) {
    for (Setting s : values()) {
      if (s.flag.equals(flag)) {
        return s;
      }
    }
    return null;
  }
}
