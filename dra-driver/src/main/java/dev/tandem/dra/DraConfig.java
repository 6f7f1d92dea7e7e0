package dev.tandem.dra;

import dev.tandem.dra.slices.HcaShape;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.kit.config.Resolved;
import dev.tandem.kit.node.LocalNode;
import dev.tandem.kit.node.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The DRA driver's validated configuration, built from {@link DraSettings}: flags over environment
 * over defaults.
 *
 * @param driver the DRA driver name
 * @param pluginRegistryDir the kubelet's plugin watcher directory
 * @param pluginDir the driver's own directory (DRA socket, checkpoint)
 * @param cdiDir where claims' CDI specs are written
 * @param mode the HCA shape
 * @param sharesPerHca shares of each HCA in the {@code shared} shape
 * @param deviceInfoDir where Prepare writes granted VFs' Device Information files
 * @param joint whether the node's GPUs are published too
 * @param rediscoverInterval time between rediscoveries while running; zero for none
 * @param node this node's name and how its machine is read
 * @param railMap the operator's rail mapping file, or null for rails by PCI order
 * @param kubeconfig the kubeconfig file, or null (in-cluster, else {@code ~/.kube/config})
 * @param opsPort the port of {@code /healthz}, {@code /readyz} and {@code /metrics}
 */
public record DraConfig(
    String driver,
    Path pluginRegistryDir,
    Path pluginDir,
    Path cdiDir,
    HcaShape mode,
    int sharesPerHca,
    Path deviceInfoDir,
    boolean joint,
    Duration rediscoverInterval,
    LocalNode node,
    Path railMap,
    Path kubeconfig,
    int opsPort) {

  /**
   * Resolves and builds.
   *
   * @throws dev.tandem.kit.config.InvalidConfigurationException naming the flag, the variable and
   *     the bad value, or the settings that do not go together
   */
  public static DraConfig parse(String[] args, Map<String, String> env) {
    return from(DraSettings.SETTINGS.resolve(List.of(args), env), env);
  }

  /** From resolved settings. */
  public static DraConfig from(Resolved v, Map<String, String> env) {
    return new DraConfig(
        v.get(DraSettings.DRIVER_NAME),
        v.get(DraSettings.PLUGIN_REGISTRY_DIR),
        DraSettings.pluginDir(v),
        v.get(DraSettings.CDI_DIR),
        v.get(DraSettings.MODE),
        v.get(DraSettings.SHARES_PER_HCA),
        v.get(DraSettings.DEVICE_INFO_DIR),
        v.get(DraSettings.JOINT),
        v.get(DraSettings.REDISCOVER_INTERVAL),
        NodeSettings.localNode(v, env),
        v.get(NodeSettings.RAIL_MAP),
        v.get(NodeSettings.KUBECONFIG),
        v.get(DraSettings.OPS_PORT));
  }

  /** What the driver publishes. */
  public PoolSpec poolSpec() {
    return new PoolSpec(driver, joint, mode, sharesPerHca);
  }

  /** The socket the kubelet's plugin watcher finds: {@code <registry>/<driver>-reg.sock}. */
  public Path registrationSocket() {
    return pluginRegistryDir.resolve(driver + "-reg.sock");
  }

  /** The socket serving the DRA service: {@code <plugin-dir>/dra.sock}. */
  public Path draSocket() {
    return pluginDir.resolve("dra.sock");
  }

  /** The prepared claims: {@code <plugin-dir>/checkpoint.json}. */
  public Path checkpoint() {
    return pluginDir.resolve("checkpoint.json");
  }
}
