package dev.tandem.deviceplugin.cli;

import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The plugin's JSON configuration file: its text for {@link ResourceConfig}, and the two keys a
 * flag also sets, for the kit's file layer.
 */
public final class ConfigFile {

  private ConfigFile() {}

  /**
   * The file's text.
   *
   * @throws InvalidConfigurationException naming the file when it cannot be read
   */
  public static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new InvalidConfigurationException("cannot read config file " + file + ": " + e);
    }
  }

  /**
   * The values of the keys a flag also sets ({@code resourceName}, {@code healthCheckSeconds}),
   * after {@link ResourceConfig#parse} accepted the whole file; for a Mellanox plugin's file, the
   * values its own keys map to (its resource name, its update interval).
   *
   * @throws InvalidConfigurationException naming the file and what is wrong in it
   */
  public static Map<String, String> sharedKeys(Path file) {
    String text = read(file);
    ResourceConfig.parse(text, file.toString());
    JsonObject o = ResourceConfig.keys(text, file.toString());
    Map<String, String> out = new LinkedHashMap<>();
    for (String key : new String[] {"resourceName", "healthCheckSeconds"}) {
      if (o.containsKey(key)) {
        out.put(key, String.valueOf(o.getValue(key)));
      }
    }
    return out;
  }
}
