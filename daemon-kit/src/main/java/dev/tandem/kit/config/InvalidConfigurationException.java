package dev.tandem.kit.config;

/**
 * A command line, environment or configuration file a daemon cannot start with: an unknown flag, a
 * missing or bad value, two settings that make no sense together, or a file (the device plugin's
 * JSON, the extender's TLS files) whose content is wrong. The message names the flag, the
 * environment variable or the file's key, and the value; daemons exit with code 2. The one
 * configuration error of every daemon: their {@code main}s catch this type alone.
 */
public class InvalidConfigurationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidConfigurationException(String message) {
    super(message);
  }
}
