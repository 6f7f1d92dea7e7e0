package dev.tandem.agent.ops;

import java.time.Instant;

/**
 * What {@code /healthz} reports.
 *
 * @param lastPublished when NodeTopology was last written or confirmed; null before the first time
 * @param lastError the last publishing error; null after a success
 * @param auditing true when the last PodResources poll succeeded
 */
public record Health(Instant lastPublished, String lastError, boolean auditing) {}
