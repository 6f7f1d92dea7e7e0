package dev.tandem.agent.ops;

import io.vertx.core.json.JsonObject;
import java.time.Instant;

/**
 * What {@code /healthz} reports. An unreachable API server does not make it fail (restarting the
 * agent would not help); alert on {@code tandem_nodetopology_publish_failures} instead.
 *
 * @param lastPublished when NodeTopology was last written or confirmed; null before the first time
 * @param lastError the last publishing error; null after a success
 * @param auditing true when the last PodResources poll succeeded
 */
public record Health(Instant lastPublished, String lastError, boolean auditing) {

  /** The body of {@code /healthz} (beside its {@code status}). */
  public JsonObject toJson() {
    return new JsonObject()
        .put("lastPublished", lastPublished == null ? null : lastPublished.toString())
        .put("lastError", lastError)
        .put("auditing", auditing);
  }
}
