package dev.tandem.extender.state;

/** Whether this replica may serve: its sources synced, and it leads. */
public final class Readiness {

  private volatile boolean synced;
  private volatile boolean leader;

  public void synced(boolean value) {
    synced = value;
  }

  public void leader(boolean value) {
    leader = value;
  }

  public boolean synced() {
    return synced;
  }

  public boolean leader() {
    return leader;
  }

  /** Ready: sources synced and this replica leads. */
  public boolean ready() {
    return synced && leader;
  }
}
