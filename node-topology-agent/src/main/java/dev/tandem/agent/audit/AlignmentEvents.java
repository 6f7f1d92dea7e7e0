package dev.tandem.agent.audit;

import dev.tandem.api.pod.PodWarnings;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Warning Event ({@code AlignmentNotMet}) on each pod whose alignment policy is not met:
 * one per pod, not one per poll. A pod that leaves the node is forgotten. Calls block.
 */
public final class AlignmentEvents {

  private static final Logger LOG = LoggerFactory.getLogger(AlignmentEvents.class);
  public static final String COMPONENT = "tandem-node-topology-agent";

  private final KubernetesClient client;
  private final String nodeName;
  private final Clock clock;
  private final Set<String> reported = new HashSet<>();

  public AlignmentEvents(KubernetesClient client, String nodeName, Clock clock) {
    this.client = client;
    this.nodeName = nodeName;
    this.clock = clock;
  }

  /**
   * Records events for violations not reported before; forgets pods no longer listed.
   *
   * @param violations this pass's violations
   * @param listedUids uids of every pod the kubelet lists now
   * @return the number of events created
   */
  public synchronized int record(Collection<Violation> violations, Set<String> listedUids) {
    reported.retainAll(listedUids);
    int created = 0;
    for (Violation v : violations) {
      if (reported.contains(v.uid())) {
        continue;
      }
      client.v1().events().inNamespace(v.namespace()).resource(event(v)).create();
      reported.add(v.uid());
      created++;
      LOG.info("Pod {}/{} on node {}: {}", v.namespace(), v.pod(), nodeName, v.message());
    }
    return created;
  }

  private Event event(Violation v) {
    return PodWarnings.warning(
        new PodWarnings.Reporter(COMPONENT, nodeName, nodeName),
        v.namespace(),
        v.pod(),
        v.uid(),
        Violation.REASON,
        v.message(),
        clock);
  }
}
