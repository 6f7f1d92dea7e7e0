package dev.tandem.extender.state;

import java.util.Optional;

/**
 * Whether this replica may serve: its sources synced, and it leads. Apart from that, whether it is
 * degraded: serving from what its informers last saw because some of them lost their watch on the
 * API server (an API server restart, a network cut). A degraded replica stays ready: see {@link
 * #degraded(String)}.
 */
public final class Readiness {

  private volatile boolean synced;
  private volatile boolean leader;
  private volatile String degraded;

  public void synced(boolean value) {
    synced = value;
  }

  public void leader(boolean value) {
    leader = value;
  }

  /**
   * Why this replica answers from possibly stale state now, or null when every informer watches.
   * Not a reason to be unready: readiness decides whether kube-scheduler reaches the extender at
   * all, and with {@code ignorable: false} an unreachable extender fails every pod asking for GPUs
   * or HCAs, while the informers' last state (binds re-check it, the kubelet admits against its
   * own) is the best answer available until the API server is back.
   */
  public void degraded(String why) {
    degraded = why;
  }

  public boolean synced() {
    return synced;
  }

  public boolean leader() {
    return leader;
  }

  /** Why answers may be stale (some informer not watching the API server); empty when not. */
  public Optional<String> degraded() {
    return Optional.ofNullable(degraded);
  }

  /** Ready: sources synced and this replica leads. */
  public boolean ready() {
    return synced && leader;
  }
}
