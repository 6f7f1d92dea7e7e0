package dev.tandem.agent.publish;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.crd.NodeTopologyMapper;
import dev.tandem.api.crd.NodeTopologySpec;
import dev.tandem.api.crd.NodeTopologyStatus;
import dev.tandem.api.crd.UnitEntry;
import dev.tandem.discovery.TopologySource;
import dev.tandem.kit.retry.Backoff;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's NodeTopology current: discovers and publishes at start and every {@code
 * resync}, publishes at once when allocations change, and backs off exponentially on API errors.
 *
 * <p>A failed discovery never empties the object: the last good machine (from this process, or read
 * back from the API after a restart) stays published and {@code status.notes} says discovery
 * failed. All state is touched on one Vert.x context; discovery and API calls run on worker
 * threads.
 */
public final class PublishLoop {

  private static final Logger LOG = LoggerFactory.getLogger(PublishLoop.class);

  private final Vertx vertx;
  private final Context context;
  private final TopologySource source;
  private final NodeTopologyPublisher publisher;
  private final ResourceNames resources;
  private final Duration resync;
  private final Backoff backoff;
  private final Clock clock;

  private volatile Machine machine;
  private List<String> discoveryNotes = List.of();
  private String discoveryFailure;
  private List<AllocationEntry> allocations = List.of();
  private List<AuditEntry> audit = List.of();
  private List<String> auditNotes = List.of();
  private List<UnitEntry> units = List.of();
  private List<MigEntry> mig = List.of();
  private Published published;
  private boolean busy;
  private boolean pendingDiscover;
  private boolean pendingPublish;
  private volatile int failures;
  private long resyncTimer = -1;
  private long retryTimer = -1;
  private volatile Instant lastSuccess;
  private volatile String lastError;

  private record Published(NodeTopologySpec spec, NodeTopologyStatus status) {}

  public PublishLoop(
      Vertx vertx,
      TopologySource source,
      NodeTopologyPublisher publisher,
      ResourceNames resources,
      Duration resync,
      Backoff backoff,
      Clock clock) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
    this.source = Objects.requireNonNull(source, "source");
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.resources = Objects.requireNonNull(resources, "resources");
    this.resync = Objects.requireNonNull(resync, "resync");
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.context = vertx.getOrCreateContext();
  }

  /** Starts the first discovery and publish and the resync timer. */
  public void start() {
    context.runOnContext(
        v -> {
          resyncTimer = vertx.setPeriodic(resync.toMillis(), id -> trigger(true));
          trigger(true);
        });
  }

  public void stop() {
    context.runOnContext(
        v -> {
          vertx.cancelTimer(resyncTimer);
          vertx.cancelTimer(retryTimer);
        });
  }

  /**
   * New allocations, audit, units and MIG devices from the kubelet and NVML; published at once when
   * they differ.
   */
  public void allocations(
      List<AllocationEntry> allocations,
      List<AuditEntry> audit,
      List<String> notes,
      List<UnitEntry> units,
      List<MigEntry> mig) {
    List<AllocationEntry> a = List.copyOf(allocations);
    List<AuditEntry> b = List.copyOf(audit);
    List<String> n = List.copyOf(notes);
    List<UnitEntry> u = List.copyOf(units);
    List<MigEntry> g = List.copyOf(mig);
    context.runOnContext(
        v -> {
          this.allocations = a;
          this.audit = b;
          this.auditNotes = n;
          this.units = u;
          this.mig = g;
          trigger(false);
        });
  }

  /** The last good machine, once discovery has succeeded (or the published one was read back). */
  public Optional<Machine> machine() {
    return Optional.ofNullable(machine);
  }

  /** When the object was last written or confirmed, null before the first success. */
  public Instant lastSuccess() {
    return lastSuccess;
  }

  /** Failed publishes since the last success. */
  public int consecutiveFailures() {
    return failures;
  }

  /** The last error, null after a success. */
  public String lastError() {
    return lastError;
  }

  private void trigger(boolean discover) {
    if (busy) {
      pendingDiscover |= discover;
      pendingPublish = true;
      return;
    }
    busy = true;
    Future<Void> discovered = discover ? discover() : Future.succeededFuture();
    discovered
        .compose(v -> publish(discover))
        .onComplete(
            ar -> {
              busy = false;
              if (ar.failed()) {
                failed(ar.cause());
              } else {
                succeeded();
              }
              if (pendingPublish) {
                boolean again = pendingDiscover;
                pendingPublish = false;
                pendingDiscover = false;
                trigger(again);
              }
            });
  }

  private Future<Void> discover() {
    return vertx
        .executeBlocking(source::discover, false)
        .transform(
            ar -> {
              if (ar.succeeded()) {
                machine = ar.result().machine();
                discoveryNotes = ar.result().notes();
                discoveryFailure = null;
                return Future.succeededFuture();
              }
              discoveryFailure =
                  "discovery failed at "
                      + now()
                      + ": "
                      + ar.cause().getMessage()
                      + (machine != null ? "; keeping the last good topology" : "");
              LOG.warn("Node {}: {}", publisher.nodeName(), discoveryFailure);
              return machine != null ? Future.succeededFuture() : readBack();
            });
  }

  /**
   * After a restart with discovery failing, keep what the API already holds rather than nothing.
   */
  private Future<Void> readBack() {
    return vertx
        .executeBlocking(publisher::current, false)
        .compose(
            current -> {
              if (current.isPresent() && current.get().getSpec() != null) {
                machine = NodeTopologyMapper.toMachine(current.get());
                return Future.succeededFuture();
              }
              return Future.failedFuture(
                  new IllegalStateException(discoveryFailure + "; nothing published yet"));
            });
  }

  private Future<Void> publish(boolean refresh) {
    NodeTopologySpec spec = NodeTopologyMapper.toSpec(machine, resources);
    NodeTopologyStatus status =
        new NodeTopologyStatus(null, allocations, audit, notes(), units, mig);
    if (!refresh
        && published != null
        && published.spec().equals(spec)
        && published.status().withObservedAt(null).equals(status)) {
      return Future.succeededFuture();
    }
    NodeTopologyStatus stamped = status.withObservedAt(now());
    return vertx
        .executeBlocking(() -> publisher.publish(spec, stamped), false)
        .map(
            outcome -> {
              published = new Published(spec, stamped);
              if (outcome != NodeTopologyPublisher.Outcome.UNCHANGED) {
                LOG.debug("NodeTopology {} {}", publisher.nodeName(), outcome);
              }
              return null;
            });
  }

  private List<String> notes() {
    List<String> notes = new ArrayList<>(discoveryNotes);
    if (discoveryFailure != null) {
      notes.add(discoveryFailure);
    }
    notes.addAll(auditNotes);
    return notes;
  }

  private void succeeded() {
    if (failures > 0) {
      LOG.info(
          "NodeTopology {} published again after {} failed attempt(s)",
          publisher.nodeName(),
          failures);
    }
    failures = 0;
    lastError = null;
    lastSuccess = clock.instant();
  }

  private void failed(Throwable cause) {
    failures++;
    lastError = describe(cause);
    Duration delay = backoff.delay(failures);
    if (failures == 1 || failures % 10 == 0) {
      LOG.warn(
          "Cannot publish NodeTopology {} (attempt {}): {}; retrying in {} s",
          publisher.nodeName(),
          failures,
          lastError,
          delay.toSeconds());
    }
    vertx.cancelTimer(retryTimer);
    retryTimer = vertx.setTimer(delay.toMillis(), id -> retry());
  }

  /** The message and, when different, the root cause's (fabric8 wraps "Connection refused"). */
  static String describe(Throwable cause) {
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String top = String.valueOf(cause.getMessage());
    return root == cause || root.getMessage() == null || top.contains(root.getMessage())
        ? top
        : top + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
  }

  private void retry() {
    published = null;
    trigger(machine == null);
  }

  private String now() {
    return DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.SECONDS));
  }
}
