package dev.tandem.simulator.workload;

/** A trace that cannot be replayed, naming the file, the line and the field at fault. */
public final class TraceException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public TraceException(String file, int line, String field, String problem) {
    super(file + ":" + line + ": field '" + field + "': " + problem);
  }

  public TraceException(String file, String problem) {
    super(file + ": " + problem);
  }
}
