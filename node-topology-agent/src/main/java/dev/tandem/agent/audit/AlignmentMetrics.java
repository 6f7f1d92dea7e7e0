package dev.tandem.agent.audit;

import dev.tandem.api.crd.AuditEntry;
import dev.tandem.topology.model.Locality;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Prometheus metrics of the audit.
 *
 * <ul>
 *   <li>{@code tandem_pod_alignment_worst_locality{namespace,pod,policy,policy_met}}: the worst
 *       locality of each audited pod as a number, 1 = PIX, 2 = PXB, 3 = PHB, 4 = NODE, 5 = SYS;
 *       removed when the pod leaves the node;
 *   <li>{@code tandem_pods_audited{policy_met}}: audited pods meeting and missing their policy;
 *   <li>{@code tandem_alignment_events_total}: AlignmentNotMet events recorded;
 *   <li>{@code tandem_podresources_up}: 1 when the last PodResources poll succeeded.
 * </ul>
 */
public final class AlignmentMetrics {

  private final MeterRegistry registry;
  private final Map<String, Gauge> podGauges = new HashMap<>();
  private final Map<String, AtomicInteger> podValues = new HashMap<>();
  private final AtomicInteger met = new AtomicInteger();
  private final AtomicInteger notMet = new AtomicInteger();
  private final AtomicInteger up = new AtomicInteger();
  private final Counter events;

  public AlignmentMetrics(MeterRegistry registry) {
    this.registry = registry;
    Gauge.builder("tandem_pods_audited", met, AtomicInteger::get)
        .tags("policy_met", "true")
        .description("Pods holding GPUs and HCAs whose alignment policy is met")
        .register(registry);
    Gauge.builder("tandem_pods_audited", notMet, AtomicInteger::get)
        .tags("policy_met", "false")
        .description("Pods holding GPUs and HCAs whose alignment policy is not met")
        .register(registry);
    Gauge.builder("tandem_podresources_up", up, AtomicInteger::get)
        .description("1 when the last kubelet PodResources poll succeeded")
        .register(registry);
    events =
        Counter.builder("tandem_alignment_events")
            .description("AlignmentNotMet events recorded")
            .register(registry);
  }

  public synchronized void audited(List<AuditEntry> audit) {
    Set<String> seen = new HashSet<>();
    int yes = 0;
    for (AuditEntry a : audit) {
      Tags tags =
          Tags.of(
              "namespace",
              a.namespace(),
              "pod",
              a.pod(),
              "policy",
              a.policy(),
              "policy_met",
              Boolean.toString(a.policyMet()));
      String key = tags.toString();
      seen.add(key);
      podValues
          .computeIfAbsent(
              key,
              k -> {
                AtomicInteger value = new AtomicInteger();
                podGauges.put(
                    k,
                    Gauge.builder("tandem_pod_alignment_worst_locality", value, AtomicInteger::get)
                        .tags(tags)
                        .description(
                            "Worst GPU-HCA locality of a pod: 1 PIX, 2 PXB, 3 PHB, 4 NODE, 5 SYS")
                        .register(registry));
                return value;
              })
          .set(Locality.parse(a.worstLocality()).ordinal());
      yes += a.policyMet() ? 1 : 0;
    }
    podValues
        .keySet()
        .removeIf(
            k -> {
              if (seen.contains(k)) {
                return false;
              }
              registry.remove(podGauges.remove(k));
              return true;
            });
    met.set(yes);
    notMet.set(audit.size() - yes);
  }

  public void eventsRecorded(int count) {
    events.increment(count);
  }

  public boolean podResourcesUp() {
    return up.get() == 1;
  }

  public void podResourcesUp(boolean value) {
    up.set(value ? 1 : 0);
  }
}
