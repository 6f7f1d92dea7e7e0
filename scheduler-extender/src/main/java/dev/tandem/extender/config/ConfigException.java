package dev.tandem.extender.config;

/** A setting that is missing, malformed or inconsistent; the message names it and what to do. */
public class ConfigException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ConfigException(String message) {
    super(message);
  }
}
