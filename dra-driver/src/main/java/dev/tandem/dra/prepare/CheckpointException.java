package dev.tandem.dra.prepare;

/** The checkpoint file cannot be read or written; the message names the file and what to do. */
public final class CheckpointException extends RuntimeException {

  public CheckpointException(String message) {
    super(message);
  }

  public CheckpointException(String message, Throwable cause) {
    super(message, cause);
  }
}
