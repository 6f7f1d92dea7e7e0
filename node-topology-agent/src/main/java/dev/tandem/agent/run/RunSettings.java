package dev.tandem.agent.run;

import dev.tandem.api.ResourceNames;
import dev.tandem.discovery.Nvml;
import dev.tandem.kit.config.Parser;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/** The settings of {@code run}, each declared once; {@link RunConfig} is built from them. */
public final class RunSettings {

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
          .asRequired()
          .help(
              "the node this agent runs on (set it from spec.nodeName with the downward API); a"
                  + " lowercase DNS subdomain");
  public static final Setting<Path> HWLOC_XML =
      Setting.of("--hwloc-xml", "FILE", Parsers.existingFile())
          .env("TANDEM_HWLOC_XML")
          .defaultText("this machine")
          .help("read this hwloc XML export instead of the machine");
  public static final Setting<Path> NCCL_TOPO =
      Setting.of("--nccl-topo", "FILE", Parsers.existingFile())
          .env("TANDEM_NCCL_TOPO")
          .help(
              "take the GPU/NIC grouping from this NCCL topology file (cloud VMs that hide the PCIe"
                  + " tree); the names from sysfs and procfs under --sysfs-root");
  public static final Setting<Path> SYSFS_ROOT =
      Setting.of("--sysfs-root", "DIR", Parsers.existingDirectory())
          .env("TANDEM_SYSFS_ROOT")
          .defaultValue("/")
          .help(
              "the host root that /sys and /proc resolve against (the host's / mounted elsewhere,"
                  + " or a captured tree); the libraries still read this machine");
  public static final Setting<Boolean> SYSFS_ONLY =
      Setting.toggle("--sysfs-only", true)
          .env("TANDEM_SYSFS_ONLY")
          .defaultValue("false")
          .defaultText("off")
          .help("read the machine from sysfs under --sysfs-root only, without libhwloc/libibverbs");
  public static final Setting<Path> POD_RESOURCES_SOCKET =
      Setting.of("--pod-resources-socket", "PATH", Parsers.path())
          .env("TANDEM_POD_RESOURCES_SOCKET")
          .defaultValue("/var/lib/kubelet/pod-resources/kubelet.sock")
          .help("the kubelet's PodResources socket");
  public static final Setting<Duration> RESYNC =
      Setting.of("--resync", "SECONDS", Parsers.seconds(1, 86_400))
          .env("TANDEM_RESYNC_SECONDS")
          .defaultValue("60")
          .help("seconds between full rediscoveries and republishes");
  public static final Setting<Duration> POLL =
      Setting.of("--poll", "SECONDS", Parsers.seconds(1, 3_600))
          .env("TANDEM_POLL_SECONDS")
          .defaultValue("10")
          .help("seconds between PodResources polls (allocation audit)");
  public static final Setting<Integer> PORT =
      Setting.of("--port", "N", Parsers.intRange(0, 65_535))
          .env("TANDEM_PORT")
          .defaultValue("8081")
          .help("port of /healthz and /metrics");
  public static final Setting<String> GPU_RESOURCE =
      Setting.of("--gpu-resource-name", "NAME", ResourceNames::extended)
          .env("TANDEM_GPU_RESOURCE_NAME")
          .defaultValue(ResourceNames.GPU)
          .help(
              "the GPU resource as the GPU device plugin registers it (joint mode:"
                  + " `gpu.resourceName` of Tandem's plugin): audited in PodResources");
  public static final Setting<String> HCA_RESOURCE =
      Setting.of("--hca-resource-name", "NAME", ResourceNames::extended)
          .env("TANDEM_HCA_RESOURCE_NAME")
          .defaultValue(ResourceNames.HCA)
          .help(
              "the HCA resource as Tandem's device plugin registers it (its `resourceName`):"
                  + " audited in PodResources");
  public static final Setting<String> NVML_LIBRARY =
      Setting.of("--nvml-library", "FILE", Parsers.text())
          .env("TANDEM_NVML_LIBRARY")
          .defaultValue(Nvml.LIBRARY)
          .help(
              "NVIDIA's NVML library (a name the loader finds, or a path): loaded only when the"
                  + " kubelet reports MIG devices, to map each to its GPU");
  public static final Setting<Path> KUBECONFIG =
      Setting.of("--kubeconfig", "FILE", Parsers.existingFile())
          .env("KUBECONFIG")
          .defaultText("in-cluster service account, else `~/.kube/config`")
          .help("kubeconfig file");

  /** {@code run}'s settings, its discovery sources exclusive. */
  public static final Settings SETTINGS =
      Settings.of(
              """
              usage: java -jar node-topology-agent.jar run [flags]

              DaemonSet mode: publish this node's NodeTopology, audit GPU/HCA allocations through the
              kubelet's PodResources API, serve /healthz and /metrics. Every flag can also be set through
              the environment variable in brackets; flags win over the environment.
              """,
              List.of(
                  NODE_NAME,
                  HWLOC_XML,
                  NCCL_TOPO,
                  SYSFS_ROOT,
                  SYSFS_ONLY,
                  POD_RESOURCES_SOCKET,
                  RESYNC,
                  POLL,
                  PORT,
                  GPU_RESOURCE,
                  HCA_RESOURCE,
                  NVML_LIBRARY,
                  KUBECONFIG))
          .rules(
              Rule.atMostOne(HWLOC_XML, NCCL_TOPO, SYSFS_ONLY),
              Rule.differ(GPU_RESOURCE, HCA_RESOURCE));

  private RunSettings() {}
}
