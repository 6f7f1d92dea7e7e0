package dev.tandem.kit.files;

/**
 * A file of a {@link HostDirectory}, or the directory itself, cannot be written, removed or listed;
 * the message names the path, the cause and what to do.
 */
public final class HostFileException extends RuntimeException {

  public HostFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
