package dev.tandem.extender.kube;

import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.GangRailBook.MemberRails;
import dev.tandem.extender.state.GangRailSplit;
import dev.tandem.extender.state.Readiness;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a gang whose members disagree on rails (docs/rails.md, "The audit of a gang's rails"):
 * each time a member's bound plan is read, the gang's members are compared ({@link GangRailSplit})
 * and each member off the rails most of them are on gets one Warning Event {@value #REASON} naming
 * the gang, both rail sets and the nodes; once per member and rail set, never again on a resync.
 * Only the leader reports, and only once the informers are synced (a member listed at start is
 * judged at the gang's next change: a split an earlier leader reported is not reported again).
 * Calls block (the pod informer's thread, never the event loop).
 */
final class GangRailAudit {

  private static final Logger LOG = LoggerFactory.getLogger(GangRailAudit.class);

  /** The Event's reason. */
  static final String REASON = "GangRailsDiffer";

  private final PodEvents events;
  private final ClusterState state;
  private final Readiness readiness;
  private final ExtenderMetrics metrics;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  GangRailAudit(
      KubernetesClient client,
      ClusterState state,
      Readiness readiness,
      ExtenderMetrics metrics,
      String identity,
      Clock clock) {
    this.events = new PodEvents(client, identity, clock);
    this.state = state;
    this.readiness = readiness;
    this.metrics = metrics;
  }

  /**
   * Judges the gang after one of its members was placed.
   *
   * @param gang the gang's key, {@code namespace/name}
   * @return the Events recorded
   */
  int placed(String gang) {
    if (!readiness.synced() || !readiness.leader()) {
      return 0;
    }
    Optional<GangRailSplit> split = GangRailSplit.of(gang, state.gangRails().railedMembers(gang));
    int recorded = 0;
    for (MemberRails member : split.map(GangRailSplit::off).orElse(List.of())) {
      if (report(split.get(), member)) {
        recorded++;
      }
    }
    return recorded;
  }

  /** Forgets what was reported of a pod that is gone. */
  void gone(String uid) {
    reported.removeIf(k -> k.startsWith(uid + "/"));
  }

  private boolean report(GangRailSplit split, MemberRails member) {
    String key = member.pod().uid() + "/" + member.rails();
    // taken before posting: only one thread may record the Event of a member and rail set
    if (!reported.add(key)) {
      return false;
    }
    String message = split.message(member);
    if (!events.warn(
        member.pod().namespace(),
        member.pod().name(),
        member.pod().uid(),
        REASON,
        message,
        "the gang's next change")) {
      reported.remove(key);
      return false;
    }
    metrics.gangRailsDiffer();
    LOG.info("{}", message);
    return true;
  }
}
