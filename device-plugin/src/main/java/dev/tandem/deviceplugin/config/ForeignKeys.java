package dev.tandem.deviceplugin.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Keys of other device plugins' config formats that Tandem's file does not take, each with the
 * plugin it comes from and what to write in Tandem's file instead: the one table an unknown key is
 * looked up in before it is refused. Keys are paths in Tandem's file: {@code resourceList} at the
 * top, {@code selectors.pfNames} inside {@code selectors}. Files of the Mellanox plugins that are
 * read as they are ({@link MellanoxConfigs}) never reach it.
 *
 * <p>Formats: k8snetworkplumbingwg/sriov-network-device-plugin {@code pkg/types/types.go} ({@code
 * ResourceConfList}, {@code ResourceConfig}, {@code NetDeviceSelectors}) and
 * Mellanox/k8s-rdma-shared-dev-plugin {@code pkg/types/types.go} ({@code UserConfigList}, {@code
 * UserConfig}, {@code Selectors}).
 */
final class ForeignKeys {

  static final String SRIOV_NETWORK = "sriov-network-device-plugin";
  private static final String BOTH = SRIOV_NETWORK + " and " + MellanoxConfigs.SHARED_PLUGIN;

  /** Where a key comes from and what Tandem takes instead. */
  record Foreign(String plugin, String instead) {}

  static final Map<String, Foreign> TABLE =
      Map.ofEntries(
          row(
              "resourceList",
              SRIOV_NETWORK,
              "Tandem's file describes one resource: write its resourceName (\"rdma/…\"), mode"
                  + " (\"sriov\" for VFs) and selectors at the top level"),
          row(
              "resourcePrefix",
              BOTH,
              "write the whole name into resourceName: \"<prefix>/<name>\", e.g. \"rdma/hca\""),
          row(
              "deviceType",
              SRIOV_NETWORK,
              "remove it: Tandem offers RDMA devices only, VFs with \"mode\": \"sriov\""),
          row(
              "excludeTopology",
              SRIOV_NETWORK,
              "remove it: Tandem always reports each device's NUMA node to the kubelet"),
          row(
              "additionalInfo",
              SRIOV_NETWORK,
              "remove it: Tandem writes each device's Device Information file itself"
                  + " (--device-info-dir)"),
          row(
              "isRdma",
              SRIOV_NETWORK,
              "remove it: Tandem offers only devices whose RDMA driver is loaded"),
          row(
              "rdmaHcaMax",
              MellanoxConfigs.SHARED_PLUGIN,
              "\"mode\": \"shared\" with \"slotsPerHca\" (slots per HCA), or keep that plugin's"
                  + " whole file, with its configList, which Tandem reads as it is"),
          row("devices", MellanoxConfigs.SHARED_PLUGIN, "selectors.netdevs (interface names)"),
          row("periodicUpdateInterval", MellanoxConfigs.SHARED_PLUGIN, "healthCheckSeconds"),
          row(
              "kubeletRootDir",
              MellanoxConfigs.SHARED_PLUGIN,
              "the flags --plugin-dir <root>/device-plugins and --pod-resources-socket"
                  + " <root>/pod-resources/kubelet.sock"),
          row("selectors.vendors", BOTH, "selectors.vendorIds, e.g. [\"15b3\"]"),
          row("selectors.devices", SRIOV_NETWORK, "selectors.deviceIds, e.g. [\"101b\"]"),
          row("selectors.deviceIDs", MellanoxConfigs.SHARED_PLUGIN, "selectors.deviceIds"),
          row(
              "selectors.drivers",
              BOTH,
              "selectors.vendorIds and selectors.deviceIds (15b3 for Mellanox/NVIDIA): Tandem"
                  + " does not select by driver"),
          row(
              "selectors.pfNames",
              SRIOV_NETWORK,
              "selectors.pfNetdevs (with \"mode\": \"sriov\", the VFs of those PFs)"),
          row(
              "selectors.rootDevices",
              SRIOV_NETWORK,
              "selectors.pfNetdevs, naming the PF by its interface instead of its PCI address"),
          row(
              "selectors.pciAddresses",
              SRIOV_NETWORK,
              "selectors.ibDevices (ibverbs names, e.g. [\"mlx5_0\"]) or selectors.netdevs"),
          row(
              "selectors.linkTypes",
              BOTH,
              "selectors.linkLayers, [\"InfiniBand\"] or [\"Ethernet\"]"),
          row("selectors.ifNames", MellanoxConfigs.SHARED_PLUGIN, "selectors.netdevs"),
          row(
              "selectors.isRdma",
              SRIOV_NETWORK,
              "remove it: Tandem offers only devices whose RDMA driver is loaded"),
          row(
              "selectors.needVhostNet",
              SRIOV_NETWORK,
              "remove it: Tandem hands containers no /dev/vhost-net"));

  private ForeignKeys() {}

  private static Map.Entry<String, Foreign> row(String path, String plugin, String instead) {
    return Map.entry(path, new Foreign(plugin, instead));
  }

  /**
   * For a {@code resourceName} without a domain, as the RDMA plugins write it (they put {@code
   * rdma/} or the {@code resourcePrefix} before it themselves): the whole name to write instead;
   * else empty.
   */
  static String bareName(String key, String name) {
    if (!key.equals("resourceName") || name == null || name.contains("/") || name.isBlank()) {
      return "";
    }
    return "; "
        + BOTH
        + " put their prefix before a bare name themselves, Tandem does not: write \"rdma/"
        + name
        + "\"";
  }

  /**
   * What to write instead of the unknown keys that another plugin's format has, one sentence each;
   * empty when none of them is in the table.
   *
   * @param prefix the keys' path in Tandem's file: {@code ""} at the top, {@code "selectors."}
   */
  static List<String> explain(String prefix, Collection<String> unknown) {
    List<String> out = new ArrayList<>();
    for (String key : unknown) {
      Foreign f = TABLE.get(prefix + key);
      if (f != null) {
        out.add(
            prefix
                + key
                + " is a key of "
                + f.plugin()
                + ", not Tandem's; instead: "
                + f.instead());
      }
    }
    return out;
  }
}
