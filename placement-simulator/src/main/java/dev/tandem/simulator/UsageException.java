package dev.tandem.simulator;

/** A command line that cannot run, naming the flag at fault (exit code 2). */
final class UsageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }
}
