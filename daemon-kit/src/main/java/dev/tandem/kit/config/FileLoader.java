package dev.tandem.kit.config;

import java.nio.file.Path;
import java.util.Map;

/**
 * Reads a daemon's configuration file into its top-level keys and their values as text; each daemon
 * keeps its own format (YAML, JSON).
 */
@FunctionalInterface
public interface FileLoader {

  /** No configuration file. */
  FileLoader NONE = file -> Map.of();

  /**
   * The file's settings by key.
   *
   * @throws InvalidConfigurationException naming the file when it cannot be read or parsed
   */
  Map<String, String> load(Path file);
}
