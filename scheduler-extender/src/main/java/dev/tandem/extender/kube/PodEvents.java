package dev.tandem.extender.kube;

import dev.tandem.api.pod.PodWarnings;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's Warning Events on pods (the claim audit's and the gang audit's): recorded as
 * {@value #COMPONENT} by this replica; a refusal by the API server is logged with what the caller
 * does next, never thrown. Calls block.
 */
final class PodEvents {

  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);

  static final String COMPONENT = "tandem-scheduler-extender";

  private final KubernetesClient client;
  private final String identity;
  private final Clock clock;

  PodEvents(KubernetesClient client, String identity, Clock clock) {
    this.client = client;
    this.identity = identity;
    this.clock = clock;
  }

  /**
   * Records a Warning Event on the pod.
   *
   * @param retry when it is tried again after a refusal, for the log (e.g. {@code the next resync})
   * @return whether it was recorded
   */
  boolean warn(
      String namespace, String pod, String uid, String reason, String message, String retry) {
    try {
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              PodWarnings.warning(
                  new PodWarnings.Reporter(COMPONENT, identity, null),
                  namespace,
                  pod,
                  uid,
                  reason,
                  message,
                  clock))
          .create();
      return true;
    } catch (KubernetesClientException e) {
      LOG.warn(
          "pod {}/{}: cannot record {} ({}); retrying at {}: {}",
          namespace,
          pod,
          reason,
          e.getMessage(),
          retry,
          message);
      return false;
    }
  }
}
