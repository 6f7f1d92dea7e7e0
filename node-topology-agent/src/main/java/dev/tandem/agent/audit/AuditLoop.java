package dev.tandem.agent.audit;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.identity.DeviceUnits;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.kubelet.podresources.AllocatableDevice;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.kubelet.podresources.PodResourcesClient;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the kubelet's PodResources ({@code List} and {@code GetAllocatableResources}) and this
 * node's Pod objects every {@code poll}, audits the allocations against the node's tree, records
 * events and metrics, and hands the report to the publisher. While the kubelet socket is absent it
 * says so once at INFO (then at DEBUG) and in the report's notes.
 */
public final class AuditLoop {

  private static final Logger LOG = LoggerFactory.getLogger(AuditLoop.class);
  private static final int MAX_DEVICE_NOTES = 5;

  /** What the loop talks to. */
  public record Peers(
      PodResourcesClient kubelet,
      NodePods pods,
      AlignmentEvents events,
      AlignmentMetrics metrics,
      MigDiscovery mig,
      NodeSlices slices) {

    /** Peers without other DRA drivers' slices. */
    public Peers(
        PodResourcesClient kubelet,
        NodePods pods,
        AlignmentEvents events,
        AlignmentMetrics metrics,
        MigDiscovery mig) {
      this(kubelet, pods, events, metrics, mig, NodeSlices.NONE);
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final Peers peers;
  private final String nodeName;
  private final Duration poll;
  private final AllocationAudit audit;
  private final Supplier<Optional<Machine>> machine;
  private final Consumer<AuditReport> sink;
  private final Set<String> warnedNames = ConcurrentHashMap.newKeySet();
  private boolean busy;
  private boolean waitingLogged;
  private long timer = -1;

  private record Observed(List<PodDevices> pods, List<AllocatableDevice> allocatable) {}

  public AuditLoop(
      Vertx vertx,
      Peers peers,
      String nodeName,
      Duration poll,
      AllocationAudit audit,
      Supplier<Optional<Machine>> machine,
      Consumer<AuditReport> sink) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.peers = peers;
    this.nodeName = nodeName;
    this.poll = poll;
    this.audit = audit;
    this.machine = machine;
    this.sink = sink;
  }

  public void start() {
    context.runOnContext(
        v -> {
          timer = vertx.setPeriodic(poll.toMillis(), id -> pollOnce());
          pollOnce();
        });
  }

  public void stop() {
    context.runOnContext(v -> vertx.cancelTimer(timer));
  }

  /** One poll; completes when the report was handed over (or the poll was skipped). */
  Future<Void> pollOnce() {
    if (busy) {
      return Future.succeededFuture();
    }
    busy = true;
    return vertx
        .executeBlocking(() -> Files.exists(peers.kubelet().socket()), false)
        .compose(present -> present ? audited() : waiting())
        .onFailure(
            e -> {
              peers.metrics().podResourcesUp(false);
              LOG.warn("Allocation audit on node {} failed: {}", nodeName, e.getMessage());
            })
        .onComplete(ar -> busy = false)
        .mapEmpty();
  }

  private Future<Void> waiting() {
    String note =
        "allocation audit is waiting for the kubelet's PodResources socket "
            + peers.kubelet().socket()
            + " (mount /var/lib/kubelet/pod-resources into the agent)";
    if (!waitingLogged) {
      LOG.info("{}", note);
      waitingLogged = true;
    } else {
      LOG.debug("{}", note);
    }
    peers.metrics().podResourcesUp(false);
    sink.accept(new AuditReport(List.of(), List.of(), List.of(), List.of(note)));
    return Future.succeededFuture();
  }

  private Future<Void> audited() {
    if (waitingLogged) {
      LOG.info(
          "Kubelet PodResources socket {} is present; auditing allocations",
          peers.kubelet().socket());
      waitingLogged = false;
    }
    return peers
        .kubelet()
        .list()
        .compose(pods -> peers.kubelet().allocatable().map(a -> new Observed(pods, a)))
        .compose(observed -> vertx.executeBlocking(() -> report(observed), false))
        .map(
            report -> {
              peers.metrics().podResourcesUp(true);
              peers.metrics().audited(report.audit());
              sink.accept(report);
              return null;
            });
  }

  /** Blocking: reads Pod objects, audits, records events. */
  private AuditReport report(Observed observed) {
    Map<String, PodFacts> facts = new HashMap<>();
    List<String> notes = new ArrayList<>();
    for (Pod p : peers.pods().list()) {
      try {
        PodFacts f = PodFacts.of(p);
        facts.put(f.key(), f);
      } catch (IllegalArgumentException e) {
        notes.add(
            "pod "
                + PodFacts.key(p.getMetadata().getNamespace(), p.getMetadata().getName())
                + " is audited without its Pod object: "
                + e.getMessage());
      }
    }
    Machine m = machine.get().orElse(null);
    MigLayout mig =
        m == null ? MigLayout.NONE : peers.mig().layout(m, ids(observed.allocatable()), notes);
    AuditReport report = audit.audit(observed.pods(), facts, m, mig, pciBusIds(observed, notes));
    Set<String> uids = new HashSet<>();
    observed
        .pods()
        .forEach(
            c ->
                Optional.ofNullable(facts.get(PodFacts.key(c.namespace(), c.pod())))
                    .ifPresent(f -> uids.add(f.uid())));
    notes.addAll(0, report.notes());
    try {
      peers.metrics().eventsRecorded(peers.events().record(report.violations(), uids));
    } catch (KubernetesClientException e) {
      LOG.warn("Cannot record AlignmentNotMet events on node {}: {}", nodeName, e.getMessage());
      notes.add("cannot record AlignmentNotMet events: " + e.getMessage());
    }
    DeviceUnits.Count count = units(observed.allocatable(), m, mig, audit.resources());
    notes.addAll(unplacedNote(count.unplaced()));
    notes.addAll(resourceNames(observed.allocatable()));
    return new AuditReport(
        report.allocations(),
        report.audit(),
        report.violations(),
        notes,
        count.units().entries(audit.resources()),
        mig.entries());
  }

  /**
   * Other DRA drivers' devices by PCI address, read from the node's ResourceSlices only when a
   * container holds one.
   */
  private Map<String, String> pciBusIds(Observed observed, List<String> notes) {
    boolean foreign =
        observed.pods().stream()
            .flatMap(c -> c.claims().stream())
            .anyMatch(d -> !audit.draDriver().equals(d.driver()));
    if (!foreign) {
      return Map.of();
    }
    try {
      return peers.slices().pciBusIds();
    } catch (KubernetesClientException e) {
      LOG.warn("Cannot read the ResourceSlices of node {}: {}", nodeName, e.getMessage());
      notes.add(
          "cannot read this node's ResourceSlices, so other DRA drivers' devices are not audited: "
              + e.getMessage());
      return Map.of();
    }
  }

  private static List<String> ids(List<AllocatableDevice> allocatable) {
    return allocatable.stream().map(AllocatableDevice::id).toList();
  }

  private static DeviceUnits.Count units(
      List<AllocatableDevice> allocatable, Machine m, MigLayout mig, ResourceNames resources) {
    if (m == null) {
      return new DeviceUnits.Count(DeviceUnits.UNCOUNTED, List.of());
    }
    Map<String, List<String>> byResource = new HashMap<>();
    for (AllocatableDevice d : allocatable) {
      byResource.computeIfAbsent(d.resource(), r -> new ArrayList<>()).add(d.id());
    }
    return DeviceUnits.count(m, mig, resources, byResource);
  }

  /**
   * The resources the kubelet offers under another name than this agent's: a note on every report,
   * a WARN once per distinct finding.
   */
  private List<String> resourceNames(List<AllocatableDevice> allocatable) {
    Set<String> offered = new HashSet<>();
    allocatable.forEach(d -> offered.add(d.resource()));
    List<String> found = ResourceNameCheck.mismatches(offered, audit.resources());
    for (String f : found) {
      if (warnedNames.add(f)) {
        LOG.warn("node {}: {}", nodeName, f);
      }
    }
    return found;
  }

  private static List<String> unplacedNote(List<String> unknown) {
    if (unknown.isEmpty()) {
      return List.of();
    }
    String shown =
        String.join(", ", unknown.subList(0, Math.min(MAX_DEVICE_NOTES, unknown.size())))
            + (unknown.size() > MAX_DEVICE_NOTES
                ? " and " + (unknown.size() - MAX_DEVICE_NOTES) + " more"
                : "");
    return List.of(
        "the kubelet advertises devices that stand for no device discovery found: "
            + shown
            + "; their alignment cannot be audited and their resource's units are counted from"
            + " the tree");
  }
}
