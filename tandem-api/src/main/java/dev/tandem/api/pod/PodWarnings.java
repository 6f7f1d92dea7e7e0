package dev.tandem.api.pod;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The one way Tandem's components write a Warning Event on a pod ({@code core/v1} Event, named
 * {@code <pod>.<hex millis>}, count 1): the agent's {@code AlignmentNotMet}, the extender's {@code
 * ClaimUnsatisfiable}. Pure: the caller creates it.
 */
public final class PodWarnings {

  /**
   * Where the Event comes from.
   *
   * @param component the reporting component, e.g. {@code tandem-node-topology-agent}
   * @param instance the reporting instance (a node's name, a replica's identity)
   * @param host the node the component runs on, or null when it is no node's
   */
  public record Reporter(String component, String instance, String host) {}

  private PodWarnings() {}

  /** A Warning Event on the pod {@code namespace/name} (uid {@code uid}), stamped now. */
  public static Event warning(
      Reporter from,
      String namespace,
      String name,
      String uid,
      String reason,
      String message,
      Clock clock) {
    String now =
        DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
    return new EventBuilder()
        .withNewMetadata()
        .withName(name + "." + Long.toHexString(clock.millis()).toLowerCase(Locale.ROOT))
        .withNamespace(namespace)
        .endMetadata()
        .withNewInvolvedObject()
        .withApiVersion("v1")
        .withKind("Pod")
        .withNamespace(namespace)
        .withName(name)
        .withUid(uid)
        .endInvolvedObject()
        .withType("Warning")
        .withReason(reason)
        .withMessage(message)
        .withNewSource()
        .withComponent(from.component())
        .withHost(from.host())
        .endSource()
        .withReportingComponent(from.component())
        .withReportingInstance(from.instance())
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .build();
  }
}
