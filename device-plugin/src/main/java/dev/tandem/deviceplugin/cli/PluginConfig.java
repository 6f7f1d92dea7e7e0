package dev.tandem.deviceplugin.cli;

import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.node.LocalNode;
import dev.tandem.kit.node.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The device plugin's validated configuration, built from {@link PluginSettings}: flags over
 * environment over the JSON file over defaults. What the file says beyond its two shared keys is
 * {@code ResourceConfig}'s.
 *
 * @param pluginDir the kubelet's device-plugin directory
 * @param kubeletSocket the kubelet's registration socket
 * @param endpoint the stem of this plugin's socket file names in {@code pluginDir}
 * @param gpuEndpoint joint mode: the stem of the GPU plugin's socket file names in {@code
 *     pluginDir}
 * @param resourceName the extended resource registered
 * @param configFile the JSON configuration file read: {@code --config}'s, else {@code dropInConfig}
 *     when that file exists; or null
 * @param dropInConfig where another RDMA plugin's deployment mounts its config, read when {@code
 *     --config} names none; null for {@code off}
 * @param node this node's name and how its machine is read
 * @param railMap the operator's rail mapping file, or null for rails by PCI order
 * @param noKube no API-server lookup of pending pods' plans or of the Node's labels
 * @param kubeconfig the kubeconfig file, or null
 * @param podResourcesSocket the kubelet's PodResources socket
 * @param lookupTimeoutMs bound on each API-server and PodResources call
 * @param healthInterval port-state re-check interval
 * @param opsPort the port of {@code /healthz}, {@code /readyz} and {@code /metrics}
 * @param deviceInfoDir where Device Information files for CNI plugins go; null writes none
 * @param deviceInfoInterval how often those files are reconciled against PodResources
 * @param nvmlLibrary NVIDIA's NVML library, the joint-mode GPU health probe's
 */
public record PluginConfig(
    Path pluginDir,
    Path kubeletSocket,
    String endpoint,
    String gpuEndpoint,
    String resourceName,
    Path configFile,
    Path dropInConfig,
    LocalNode node,
    Path railMap,
    boolean noKube,
    Path kubeconfig,
    Path podResourcesSocket,
    long lookupTimeoutMs,
    Duration healthInterval,
    int opsPort,
    Path deviceInfoDir,
    Duration deviceInfoInterval,
    String nvmlLibrary) {

  /**
   * Resolves and builds, reading the file through {@link ConfigFile}.
   *
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the flag, the variable and
   *     the bad value, or the configuration file and what is wrong in it
   */
  public static PluginConfig parse(String[] args, Map<String, String> env) {
    return from(PluginSettings.SETTINGS.resolve(List.of(args), env, ConfigFile::sharedKeys), env);
  }

  /** From resolved settings; {@code env} gives the node name's fallback, {@code HOSTNAME}. */
  public static PluginConfig from(Resolved v, Map<String, String> env) {
    Path dir = v.get(PluginSettings.PLUGIN_DIR);
    return new PluginConfig(
        dir,
        v.get(PluginSettings.KUBELET_SOCKET, dir.resolve("kubelet.sock")),
        v.get(PluginSettings.ENDPOINT),
        v.get(PluginSettings.GPU_ENDPOINT),
        v.get(PluginSettings.RESOURCE_NAME),
        v.file(),
        v.get(PluginSettings.DROP_IN_CONFIG),
        NodeSettings.localNode(v, env),
        v.get(NodeSettings.RAIL_MAP),
        v.get(PluginSettings.NO_KUBE),
        v.get(NodeSettings.KUBECONFIG),
        v.get(NodeSettings.POD_RESOURCES_SOCKET),
        v.get(PluginSettings.LOOKUP_TIMEOUT_MS),
        v.get(PluginSettings.HEALTH_INTERVAL),
        v.get(PluginSettings.OPS_PORT),
        v.get(PluginSettings.DEVICE_INFO_DIR),
        v.get(PluginSettings.DEVICE_INFO_INTERVAL),
        v.get(NodeSettings.NVML_LIBRARY));
  }
}
