package dev.tandem.dra.slices;

/**
 * The node's devices cannot be published as they are: a name, an attribute or a count outside what
 * the ResourceSlice API accepts. The message names the node, the device and what to do.
 */
public final class InvalidPoolException extends RuntimeException {

  public InvalidPoolException(String message) {
    super(message);
  }

  public InvalidPoolException(String message, Throwable cause) {
    super(message, cause);
  }
}
