package dev.tandem.deviceplugin.config;

/** The plugin's configuration (file or flags) is wrong; the message says what and where. */
public class ConfigException extends RuntimeException {

  public ConfigException(String message) {
    super(message);
  }
}
