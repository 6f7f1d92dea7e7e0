package dev.tandem.simulator.cluster;

/** A cluster description that cannot be read, naming the file and where in it. */
public final class ClusterFileException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ClusterFileException(String message, Throwable cause) {
    super(message, cause);
  }

  public ClusterFileException(String message) {
    super(message);
  }
}
