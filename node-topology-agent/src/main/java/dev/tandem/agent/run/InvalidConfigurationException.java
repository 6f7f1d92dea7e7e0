package dev.tandem.agent.run;

/** A flag or environment variable with a bad value; the message names both and the value. */
public class InvalidConfigurationException extends RuntimeException {

  public InvalidConfigurationException(String message) {
    super(message);
  }
}
