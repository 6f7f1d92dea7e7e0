package dev.tandem.deviceplugin.cli;

/** A command line the plugin cannot run with; the message names the flag. Exit code 2. */
public class UsageException extends RuntimeException {

  public UsageException(String message) {
    super(message);
  }
}
