package dev.tandem.extender.config;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.kit.config.InvalidConfigurationException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** The extender's {@code --config} file: YAML or JSON, camelCase keys, values as text. */
public final class YamlFile {

  private YamlFile() {}

  /**
   * @throws InvalidConfigurationException naming the file when it cannot be read or parsed
   */
  public static Map<String, String> read(Path file) {
    try {
      Map<?, ?> raw = new YAMLMapper().readValue(file.toFile(), Map.class);
      Map<String, String> out = new LinkedHashMap<>();
      if (raw != null) {
        raw.forEach(
            (k, val) -> out.put(String.valueOf(k), val == null ? null : String.valueOf(val)));
      }
      return out;
    } catch (IOException e) {
      throw new InvalidConfigurationException(
          "cannot read config file " + file + ": " + e.getMessage());
    }
  }
}
