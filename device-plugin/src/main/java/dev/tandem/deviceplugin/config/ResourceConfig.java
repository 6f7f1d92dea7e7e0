package dev.tandem.deviceplugin.config;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The resource the device plugin serves and how, as its JSON configuration file says, e.g. {@code
 * {"mode":"shared","slotsPerHca":1000}}: which HCAs, as which devices of which extended resource
 * (and in joint mode {@code nvidia.com/gpu} too, {@link GpuConfig}). A resource configuration in
 * the sense of the SR-IOV network device plugin's {@code resourceList} entries. The file's two keys
 * a flag also sets ({@code resourceName}, {@code healthCheckSeconds}) are the plugin's settings'
 * ({@code cli.PluginSettings}), which override them here.
 *
 * @param mode how HCAs become devices
 * @param resourceName the extended resource registered with the kubelet
 * @param slotsPerHca devices per HCA in {@code shared} mode (1 in the other modes)
 * @param selectors which HCAs are offered
 * @param healthInterval how often port states are re-read
 * @param gpu joint mode: whether (and how) {@code nvidia.com/gpu} is served too
 * @param allocateAllDevices every container gets the character devices of all offered RDMA devices
 *     of the node, not only of those the kubelet granted it (as Alibaba Cloud's eRDMA controller's
 *     {@code --allocate-all-devices}); the granted ids, and so the locality recorded, stay the
 *     kubelet's. {@code hca} and {@code shared} mode only
 */
public record ResourceConfig(
    Mode mode,
    String resourceName,
    int slotsPerHca,
    Selectors selectors,
    Duration healthInterval,
    GpuConfig gpu,
    boolean allocateAllDevices) {

  public static final String DEFAULT_RESOURCE = ResourceNames.HCA;

  /**
   * The most slots per HCA in {@code shared} mode: 65,536 devices per HCA already make a
   * ListAndWatch list of about 2.3 MiB, and the kubelet reads at most 4 MiB.
   */
  public static final int MAX_SLOTS_PER_HCA = 65_536;

  public static final ResourceConfig DEFAULT =
      new ResourceConfig(Mode.HCA, DEFAULT_RESOURCE, 1, Selectors.ALL, Duration.ofSeconds(10));

  private static final Set<String> KEYS =
      Set.of(
          "mode",
          "resourceName",
          "slotsPerHca",
          "selectors",
          "healthCheckSeconds",
          "gpu",
          "allocateAllDevices");
  private static final Set<String> SELECTOR_KEYS =
      Set.of("vendorIds", "deviceIds", "linkLayers", "ibDevices", "netdevs", "pfNetdevs");
  private static final Set<String> LINK_LAYERS = Set.of("infiniband", "ethernet");

  /** Without joint mode. */
  public ResourceConfig(
      Mode mode,
      String resourceName,
      int slotsPerHca,
      Selectors selectors,
      Duration healthInterval) {
    this(mode, resourceName, slotsPerHca, selectors, healthInterval, GpuConfig.OFF);
  }

  /** Each container with the devices the kubelet granted it only. */
  public ResourceConfig(
      Mode mode,
      String resourceName,
      int slotsPerHca,
      Selectors selectors,
      Duration healthInterval,
      GpuConfig gpu) {
    this(mode, resourceName, slotsPerHca, selectors, healthInterval, gpu, false);
  }

  public ResourceConfig {
    checkName("resourceName", resourceName);
    if (slotsPerHca < 1 || slotsPerHca > MAX_SLOTS_PER_HCA) {
      throw new InvalidConfigurationException(
          "slotsPerHca must be from 1 to "
              + MAX_SLOTS_PER_HCA
              + " (each slot is a device in the list sent to the kubelet), got "
              + slotsPerHca);
    }
    if (mode != Mode.SHARED && slotsPerHca != 1) {
      throw new InvalidConfigurationException(
          "slotsPerHca is only meaningful in shared mode (mode is " + mode.value() + ")");
    }
    if (allocateAllDevices && mode == Mode.SRIOV) {
      throw new InvalidConfigurationException(
          "allocateAllDevices is refused in sriov mode: each VF belongs to the one pod it is"
              + " granted to (SR-IOV CNI moves it into that pod's network namespace), so no"
              + " container can be handed every VF; use mode hca or shared with it, or remove it");
    }
  }

  /**
   * The config file's keys in Tandem's form: the file itself, or a Mellanox plugin's file rewritten
   * ({@code resourceName} and {@code healthCheckSeconds} then come from its own keys).
   */
  public static JsonObject keys(String json, String where) {
    try {
      return MellanoxConfigs.asTandem(object(json, where), where);
    } catch (ClassCastException e) {
      throw new InvalidConfigurationException(
          where + ": a value has the wrong type: " + e.getMessage());
    } catch (InvalidConfigurationException e) {
      throw e.getMessage().startsWith(where)
          ? e
          : new InvalidConfigurationException(where + ": " + e.getMessage());
    }
  }

  private static JsonObject object(String json, String where) {
    try {
      return new JsonObject(json);
    } catch (DecodeException | ClassCastException e) {
      throw new InvalidConfigurationException(where + ": not a JSON object: " + e.getMessage());
    }
  }

  /** Parses the config file's text; {@code where} names the file in error messages. */
  public static ResourceConfig parse(String json, String where) {
    JsonObject o = keys(json, where);
    try {
      rejectUnknown(o, KEYS, where, "");
      Mode mode = Mode.parse(o.getString("mode", "hca"));
      int slots =
          WholeNumbers.read(
              o, "", "slotsPerHca", mode == Mode.SHARED ? DeviceIds.DEFAULT_SHARES_PER_HCA : 1);
      Selectors sel = selectors(o.getJsonObject("selectors", new JsonObject()), where);
      int seconds = WholeNumbers.read(o, "", "healthCheckSeconds", 10);
      if (seconds < 1) {
        throw new InvalidConfigurationException(
            "healthCheckSeconds must be at least 1, got " + seconds);
      }
      JsonObject gpu = o.getJsonObject("gpu", new JsonObject());
      rejectUnknown(gpu, GpuConfig.KEYS, where + " gpu", "gpu.");
      String resource = o.getString("resourceName", DEFAULT_RESOURCE);
      GpuConfig g = GpuConfig.parse(gpu);
      if (g.enabled() && g.resourceName().equals(resource)) {
        throw new InvalidConfigurationException(
            "gpu.resourceName and resourceName are both " + resource + "; they must differ");
      }
      return new ResourceConfig(
          mode,
          resource,
          slots,
          sel,
          Duration.ofSeconds(seconds),
          g,
          o.getBoolean("allocateAllDevices", false));
    } catch (ClassCastException e) {
      throw new InvalidConfigurationException(
          where + ": a value has the wrong type: " + e.getMessage());
    } catch (InvalidConfigurationException e) {
      throw e.getMessage().startsWith(where)
          ? e
          : new InvalidConfigurationException(where + ": " + e.getMessage());
    }
  }

  public ResourceConfig withResourceName(String name) {
    return new ResourceConfig(
        mode, name, slotsPerHca, selectors, healthInterval, gpu, allocateAllDevices);
  }

  public ResourceConfig withHealthInterval(Duration interval) {
    return new ResourceConfig(
        mode, resourceName, slotsPerHca, selectors, interval, gpu, allocateAllDevices);
  }

  public ResourceConfig withGpu(GpuConfig value) {
    return new ResourceConfig(
        mode, resourceName, slotsPerHca, selectors, healthInterval, value, allocateAllDevices);
  }

  private static Selectors selectors(JsonObject s, String where) {
    rejectUnknown(s, SELECTOR_KEYS, where + " selectors", "selectors.");
    List<String> links = strings(s, "linkLayers");
    for (String l : links) {
      if (!LINK_LAYERS.contains(l.toLowerCase())) {
        throw new InvalidConfigurationException(
            "unknown link layer '"
                + l
                + "' in selectors.linkLayers; allowed: InfiniBand, Ethernet");
      }
    }
    return new Selectors(
        strings(s, "vendorIds"),
        strings(s, "deviceIds"),
        links,
        strings(s, "ibDevices"),
        strings(s, "netdevs"),
        strings(s, "pfNetdevs"));
  }

  private static List<String> strings(JsonObject o, String key) {
    JsonArray a = o.getJsonArray(key, new JsonArray());
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.add(a.getString(i));
    }
    return out;
  }

  static void rejectUnknown(JsonObject o, Set<String> known, String where) {
    rejectUnknown(o, known, where, null);
  }

  /**
   * As {@link #rejectUnknown(JsonObject, Set, String)}, but a key another plugin's format has is
   * refused naming that plugin and what Tandem takes instead ({@link ForeignKeys}).
   *
   * @param prefix the object's path in Tandem's file ({@code ""}, {@code "selectors."}), or null
   *     for no look-up
   */
  static void rejectUnknown(JsonObject o, Set<String> known, String where, String prefix) {
    Set<String> unknown = new TreeSet<>(o.fieldNames());
    unknown.removeAll(known);
    List<String> foreign = prefix == null ? List.of() : ForeignKeys.explain(prefix, unknown);
    if (!foreign.isEmpty()) {
      throw new InvalidConfigurationException(where + ": " + String.join("; ", foreign));
    }
    if (!unknown.isEmpty()) {
      throw new InvalidConfigurationException(
          where
              + ": unknown key"
              + (unknown.size() == 1 ? " " : "s ")
              + String.join(", ", unknown)
              + "; allowed: "
              + String.join(", ", new TreeSet<>(known)));
    }
  }

  /** Refuses a name the API server would not accept as an extended resource, naming the key. */
  static void checkName(String key, String name) {
    try {
      ResourceNames.extended(name);
    } catch (IllegalArgumentException e) {
      throw new InvalidConfigurationException(
          key + " '" + name + "' " + e.getMessage() + ForeignKeys.bareName(key, name));
    }
  }
}
