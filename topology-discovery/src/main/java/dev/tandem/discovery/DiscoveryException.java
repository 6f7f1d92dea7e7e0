package dev.tandem.discovery;

/**
 * Discovery could not read an input it was told to use: a missing, unreadable or invalid file, or a
 * library that is absent or of an unsupported version. The message names the file or library and
 * the reason.
 */
public class DiscoveryException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public DiscoveryException(String message) {
    super(message);
  }

  public DiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
