package dev.tandem.kit.config;

/**
 * A command line, environment or configuration file a daemon cannot start with: an unknown flag, a
 * missing or bad value, or two settings that make no sense together. The message names the flag,
 * the environment variable and the value; daemons exit with code 2.
 */
public class InvalidConfigurationException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public InvalidConfigurationException(String message) {
    super(message);
  }
}
