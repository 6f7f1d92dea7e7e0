package dev.tandem.extender.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.kit.config.InvalidConfigurationException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The extender's {@code --config} file: YAML or JSON, camelCase keys, values as text; a list or a
 * map (such as {@code nodeClassDefaults}) as its JSON text, which its setting parses.
 */
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
        for (Map.Entry<?, ?> e : raw.entrySet()) {
          out.put(String.valueOf(e.getKey()), text(e.getValue()));
        }
      }
      return out;
    } catch (IOException e) {
      throw new InvalidConfigurationException(
          "cannot read config file " + file + ": " + e.getMessage());
    }
  }

  private static String text(Object value) throws JsonProcessingException {
    if (value instanceof List || value instanceof Map) {
      return new ObjectMapper().writeValueAsString(value);
    }
    return value == null ? null : String.valueOf(value);
  }
}
