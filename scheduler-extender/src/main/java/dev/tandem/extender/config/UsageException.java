package dev.tandem.extender.config;

/** A command line the extender does not understand (exit code 2). */
public class UsageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UsageException(String message) {
    super(message);
  }
}
