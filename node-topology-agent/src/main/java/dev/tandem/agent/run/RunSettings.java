package dev.tandem.agent.run;

import dev.tandem.api.DnsNames;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.dra.DraDriver;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import dev.tandem.kit.node.NodeSettings;
import java.time.Duration;
import java.util.List;

/**
 * The settings of {@code run}, each declared once: the node settings every node daemon shares
 * ({@link NodeSettings}, the node name required here) and the agent's own. {@link RunConfig} is
 * built from them.
 */
public final class RunSettings {

  /** Required here: the agent publishes its NodeTopology under the node's name. */
  public static final Setting<String> NODE_NAME = NodeSettings.NODE_NAME.asRequired();

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
  public static final Setting<String> DRA_DRIVER_NAME =
      Setting.of("--dra-driver-name", "NAME", RunSettings::draDriverName)
          .env("TANDEM_DRA_DRIVER_NAME")
          .defaultValue(DraDriver.DEFAULT_NAME)
          .help(
              "Tandem's DRA driver name (the driver's `--driver-name`): devices pods hold through"
                  + " ResourceClaims of this driver are audited by their names");

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
                  NodeSettings.HWLOC_XML,
                  NodeSettings.NCCL_TOPO,
                  NodeSettings.SYSFS_ROOT,
                  NodeSettings.SYSFS_ONLY,
                  NodeSettings.RAIL_MAP,
                  NodeSettings.POD_RESOURCES_SOCKET,
                  RESYNC,
                  POLL,
                  PORT,
                  GPU_RESOURCE,
                  HCA_RESOURCE,
                  DRA_DRIVER_NAME,
                  NodeSettings.NVML_LIBRARY,
                  NodeSettings.KUBECONFIG))
          .rules(NodeSettings.ONE_SOURCE, Rule.differ(GPU_RESOURCE, HCA_RESOURCE));

  private static String draDriverName(String text) {
    if (!DnsNames.isSubdomain(text)) {
      throw new IllegalArgumentException("is not a lowercase DNS subdomain");
    }
    return text;
  }

  private RunSettings() {}
}
