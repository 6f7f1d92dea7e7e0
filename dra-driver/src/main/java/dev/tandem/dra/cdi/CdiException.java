package dev.tandem.dra.cdi;

/**
 * A CDI spec could not be written or removed, or the CDI directory cannot be used. The message
 * names the directory or file, the cause and what to do.
 */
public final class CdiException extends RuntimeException {

  public CdiException(String message, Throwable cause) {
    super(message, cause);
  }

  public CdiException(String message) {
    super(message);
  }
}
