package dev.tandem.deviceplugin.config;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The config files of the RDMA device plugins Tandem replaces, read as they are and rewritten into
 * Tandem's form (which {@link ResourceConfig#parse} then reads as any other):
 *
 * <ul>
 *   <li>Mellanox/k8s-rdma-sriov-dev-plugin, {@code {"mode":"hca"|"sriov","pfNetdevices":[…]}}:
 *       recognised by {@code pfNetdevices}/{@code pfMaxBandwidth}, or by the file's own path
 *       ({@code …/k8s-rdma-sriov-dev-plugin/config.json}) since {@code {"mode":"hca"}} means a
 *       shared pool there and one device per HCA here;
 *   <li>Mellanox/k8s-rdma-shared-dev-plugin, {@code {"configList":[{"resourceName",
 *       "rdmaHcaMax","devices","selectors"}]}}: recognised by {@code configList}.
 * </ul>
 *
 * What is understood is logged once; what has no Tandem meaning is refused, saying what to do.
 */
final class MellanoxConfigs {

  private static final Logger LOG = LoggerFactory.getLogger(MellanoxConfigs.class);

  static final String SRIOV_PLUGIN = "k8s-rdma-sriov-dev-plugin";
  static final String SHARED_PLUGIN = "k8s-rdma-shared-dev-plugin";
  private static final Set<String> SRIOV_KEYS = Set.of("mode", "pfNetdevices", "pfMaxBandwidth");
  private static final Set<String> SHARED_KEYS =
      Set.of("configList", "periodicUpdateInterval", "kubeletRootDir");
  private static final Set<String> SHARED_ENTRY_KEYS =
      Set.of("resourceName", "rdmaHcaMax", "devices", "selectors");
  private static final Set<String> SHARED_SELECTOR_KEYS =
      Set.of("vendors", "deviceIDs", "drivers", "ifNames", "linkTypes");
  private static final Map<String, String> LINK_TYPES =
      Map.of("ether", "Ethernet", "infiniband", "InfiniBand");
  private static final int SRIOV_PLUGIN_HCA_POOL = 1000;
  private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

  private MellanoxConfigs() {}

  /** The config in Tandem's form: {@code o} itself unless it is one of the Mellanox formats. */
  static JsonObject asTandem(JsonObject o, String where) {
    if (o.containsKey("configList")) {
      return log(where, SHARED_PLUGIN, fromSharedPlugin(o));
    }
    boolean sriovKeysOnly = SRIOV_KEYS.containsAll(o.fieldNames());
    boolean sriovOnlyKey = o.containsKey("pfNetdevices") || o.containsKey("pfMaxBandwidth");
    if (sriovKeysOnly && (sriovOnlyKey || where.endsWith(SRIOV_PLUGIN + "/config.json"))) {
      return log(where, SRIOV_PLUGIN, fromSriovPlugin(o));
    }
    if (sriovOnlyKey) {
      throw new InvalidConfigurationException(
          "pfNetdevices/pfMaxBandwidth are "
              + SRIOV_PLUGIN
              + " keys, but the file also has "
              + other(o, SRIOV_KEYS)
              + "; use that plugin's keys only (mode, pfNetdevices) or Tandem's"
              + " (selectors.pfNetdevs)");
    }
    return o;
  }

  private static JsonObject fromSriovPlugin(JsonObject o) {
    JsonArray bandwidth = o.getJsonArray("pfMaxBandwidth", new JsonArray());
    if (!bandwidth.isEmpty()) {
      throw new InvalidConfigurationException(
          "pfMaxBandwidth "
              + bandwidth.encode()
              + " cannot be mapped: Tandem does not set VF rates. Remove it and set the rates"
              + " on the node (ip link set <pf> vf <n> max_tx_rate <Mbit/s>)");
    }
    String mode = o.getString("mode");
    JsonArray pfs = o.getJsonArray("pfNetdevices", new JsonArray());
    return switch (mode == null ? "" : mode) {
      case "hca" ->
          new JsonObject()
              .put("mode", Mode.SHARED.value())
              .put("slotsPerHca", SRIOV_PLUGIN_HCA_POOL)
              .put("resourceName", "rdma/hca")
              .put("selectors", pfs.isEmpty() ? new JsonObject() : select("netdevs", pfs));
      case "sriov" ->
          new JsonObject()
              .put("mode", Mode.SRIOV.value())
              .put("resourceName", "rdma/vhca")
              .put("selectors", pfs.isEmpty() ? new JsonObject() : select("pfNetdevs", pfs));
      default ->
          throw new InvalidConfigurationException(
              SRIOV_PLUGIN
                  + " mode '"
                  + mode
                  + "' is not one of hca, sriov; set \"mode\" to one of them");
    };
  }

  private static JsonObject fromSharedPlugin(JsonObject o) {
    ResourceConfig.rejectUnknown(o, SHARED_KEYS, SHARED_PLUGIN + " config");
    JsonArray list = o.getJsonArray("configList");
    if (list == null || list.size() != 1) {
      throw new InvalidConfigurationException(
          "configList has "
              + (list == null ? 0 : list.size())
              + " entries; Tandem serves one RDMA resource per node. Keep one entry (one"
              + " resourceName), or run one Tandem plugin per resource with its own file");
    }
    String root = o.getString("kubeletRootDir", "/var/lib/kubelet");
    if (!root.equals("/var/lib/kubelet")) {
      throw new InvalidConfigurationException(
          "kubeletRootDir '"
              + root
              + "' is set by flags in Tandem: remove it and pass --plugin-dir "
              + root
              + "/device-plugins and --pod-resources-socket "
              + root
              + "/pod-resources/kubelet.sock");
    }
    JsonObject out = fromSharedEntry(list.getJsonObject(0));
    int interval = o.getInteger("periodicUpdateInterval", 0);
    return interval > 0 ? out.put("healthCheckSeconds", interval) : out;
  }

  private static JsonObject fromSharedEntry(JsonObject e) {
    ResourceConfig.rejectUnknown(e, SHARED_ENTRY_KEYS, "configList[0]");
    String name = e.getString("resourceName");
    if (name == null || name.isEmpty()) {
      throw new InvalidConfigurationException(
          "configList[0].resourceName is missing; name the resource");
    }
    JsonArray devices = e.getJsonArray("devices", new JsonArray());
    JsonObject sel = e.getJsonObject("selectors", new JsonObject());
    if (!devices.isEmpty() && !sel.isEmpty()) {
      throw new InvalidConfigurationException(
          "configList[0] has both devices and selectors; keep one (devices are interface names)");
    }
    int max = e.getInteger("rdmaHcaMax", DeviceIds.DEFAULT_SHARES_PER_HCA);
    if (max < 1) {
      throw new InvalidConfigurationException(
          "configList[0].rdmaHcaMax must be at least 1, got " + max);
    }
    return new JsonObject()
        .put("mode", Mode.SHARED.value())
        .put("resourceName", name.contains("/") ? name : "rdma/" + name)
        .put("slotsPerHca", max)
        .put("selectors", devices.isEmpty() ? sharedSelectors(sel) : select("netdevs", devices));
  }

  private static JsonObject sharedSelectors(JsonObject s) {
    ResourceConfig.rejectUnknown(s, SHARED_SELECTOR_KEYS, "configList[0].selectors");
    if (!s.getJsonArray("drivers", new JsonArray()).isEmpty()) {
      throw new InvalidConfigurationException(
          "configList[0].selectors.drivers cannot be mapped: Tandem selects by PCI vendor and"
              + " device id, link layer, ibverbs name or interface. Replace drivers with vendors"
              + " and deviceIDs (15b3 for Mellanox/NVIDIA)");
    }
    List<String> links = new ArrayList<>();
    for (Object t : s.getJsonArray("linkTypes", new JsonArray())) {
      String layer = LINK_TYPES.get(String.valueOf(t));
      if (layer == null) {
        throw new InvalidConfigurationException(
            "configList[0].selectors.linkTypes '" + t + "' is not one of ether, infiniband");
      }
      links.add(layer);
    }
    return new JsonObject()
        .put("vendorIds", s.getJsonArray("vendors", new JsonArray()))
        .put("deviceIds", s.getJsonArray("deviceIDs", new JsonArray()))
        .put("netdevs", s.getJsonArray("ifNames", new JsonArray()))
        .put("linkLayers", new JsonArray(links));
  }

  private static JsonObject select(String key, JsonArray values) {
    return new JsonObject().put(key, values);
  }

  private static String other(JsonObject o, Set<String> known) {
    Set<String> rest = new TreeSet<>(o.fieldNames());
    rest.removeAll(known);
    return String.join(", ", rest);
  }

  /** Once per file and reading: the flags' layer and the plugin both parse the file. */
  private static JsonObject log(String where, String plugin, JsonObject tandem) {
    if (!LOGGED.add(where + " " + tandem.encode())) {
      return tandem;
    }
    LOG.info(
        "{} is {}'s config; read as Tandem's {} (see docs/device-plugin.md, Migrating)",
        where,
        plugin,
        tandem.encode());
    return tandem;
  }
}
