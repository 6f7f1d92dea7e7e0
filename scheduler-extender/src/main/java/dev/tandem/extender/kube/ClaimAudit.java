package dev.tandem.extender.kube;

import dev.tandem.api.claims.ClaimReading;
import dev.tandem.api.claims.ClaimSatisfiability;
import dev.tandem.api.claims.ClaimSatisfiability.NodeOffer;
import dev.tandem.api.claims.ClaimSatisfiability.Unsatisfiable;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.api.claims.NodeDevices;
import dev.tandem.extender.metrics.ExtenderMetrics;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.Readiness;
import dev.tandem.topology.model.Machine;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a pending pod whose claim no node can ever be given: for each claim of an unscheduled pod
 * that asks only Tandem's DeviceClasses in a shape {@link ClaimReading} reads exactly, it judges
 * the claim against every node's devices as Tandem's driver publishes them, all free ({@link
 * ClaimSatisfiability}), and records a Warning Event {@value #REASON} on the pod naming the claim,
 * what no node meets and what comes nearest. Nodes whose devices the matcher cannot tell apart are
 * matched once, by their first ({@link ClaimSatisfiability#distinct}): a node's devices and their
 * signature are worked out once per change of its tree, not per claim. Each pod's claim is judged
 * once per claim generation, not on every resync; a claim it cannot read is left alone. Only the
 * leader judges, and only once the NodeTopologies are listed. Calls block (the informers' thread).
 */
final class ClaimAudit {

  private static final Logger LOG = LoggerFactory.getLogger(ClaimAudit.class);

  /** The Event's reason. */
  static final String REASON = "ClaimUnsatisfiable";

  private final PodEvents events;
  private final ClusterState state;
  private final Readiness readiness;
  private final ExtenderMetrics metrics;
  private final Set<String> judged = ConcurrentHashMap.newKeySet();
  private final Map<String, Offer> offers = new ConcurrentHashMap<>();

  /** A node's devices and their signature, kept while its tree is the same object. */
  private record Offer(Machine machine, NodeOffer offer) {}

  ClaimAudit(
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
   * Judges the pod's claims when it is pending.
   *
   * @param claims a claim by {@code namespace/name}, null when not seen (yet)
   * @return the Events recorded
   */
  int pod(Pod pod, Function<String, ResourceClaim> claims) {
    if (!pending(pod) || !readiness.synced() || !readiness.leader()) {
      return 0;
    }
    int recorded = 0;
    String namespace = pod.getMetadata().getNamespace();
    for (PodResourceClaim ref : pod.getSpec().getResourceClaims()) {
      String name = claimName(pod, ref);
      ResourceClaim claim = name == null ? null : claims.apply(namespace + "/" + name);
      if (claim != null && judge(pod, claim)) {
        recorded++;
      }
    }
    return recorded;
  }

  /** Forgets what was judged of a claim that is gone. */
  void claimGone(ResourceClaim claim) {
    String uid = claim.getMetadata().getUid();
    judged.removeIf(k -> k.contains("/" + uid + "/"));
  }

  /** Forgets what was judged for a pod that is gone or scheduled. */
  void podGone(Pod pod) {
    String prefix = pod.getMetadata().getUid() + "/";
    judged.removeIf(k -> k.startsWith(prefix));
  }

  static boolean pending(Pod pod) {
    return pod.getSpec() != null
        && (pod.getSpec().getNodeName() == null || pod.getSpec().getNodeName().isEmpty())
        && pod.getMetadata().getDeletionTimestamp() == null
        && (pod.getStatus() == null
            || pod.getStatus().getPhase() == null
            || "Pending".equals(pod.getStatus().getPhase()))
        && pod.getSpec().getResourceClaims() != null
        && !pod.getSpec().getResourceClaims().isEmpty();
  }

  /** The claim's name: given in the pod, or the one generated from its template. */
  static String claimName(Pod pod, PodResourceClaim ref) {
    if (ref.getResourceClaimName() != null) {
      return ref.getResourceClaimName();
    }
    if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
      return null;
    }
    return pod.getStatus().getResourceClaimStatuses().stream()
        .filter(s -> ref.getName().equals(s.getName()))
        .map(PodResourceClaimStatus::getResourceClaimName)
        .findFirst()
        .orElse(null);
  }

  /** Whether an Event was recorded. */
  private boolean judge(Pod pod, ResourceClaim claim) {
    if (claim.getStatus() != null && claim.getStatus().getAllocation() != null) {
      return false;
    }
    String key =
        pod.getMetadata().getUid()
            + "/"
            + claim.getMetadata().getUid()
            + "/"
            + claim.getMetadata().getGeneration();
    // taken before judging: the pod informer's thread and the claim informer's may judge the same
    // pod at once, and only one of them may record the Event
    if (!judged.add(key)) {
      return false;
    }
    Optional<DeviceClaimSpec> spec = ClaimReading.read(claim.getSpec());
    List<NodeOffer> nodes = ClaimSatisfiability.distinct(offers());
    if (nodes.isEmpty()) {
      judged.remove(key);
      return false; // nothing to judge by yet: judged at a later event or resync
    }
    if (spec.isEmpty()) {
      return false; // a claim the matcher does not model is never judged
    }
    Optional<Unsatisfiable> verdict = ClaimSatisfiability.judge(spec.get(), nodes);
    if (verdict.isEmpty()) {
      return false;
    }
    String message = verdict.get().message(claim.getMetadata().getName());
    if (!events.warn(
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        REASON,
        message,
        "the next resync")) {
      judged.remove(key);
      return false;
    }
    metrics.unsatisfiableClaim();
    LOG.info(
        "pod {}/{}: {}", pod.getMetadata().getNamespace(), pod.getMetadata().getName(), message);
    return true;
  }

  /** Every node's devices, from the NodeTopologies in the state. */
  private List<NodeOffer> offers() {
    List<NodeOffer> out = new ArrayList<>();
    List<NodeEntry> nodes = state.nodes();
    offers.keySet().retainAll(nodes.stream().map(NodeEntry::name).toList());
    for (NodeEntry n : nodes) {
      Machine machine = n.index().machine();
      Offer offer = offers.get(n.name());
      if (offer == null || offer.machine() != machine) {
        offer = new Offer(machine, new NodeOffer(n.name(), NodeDevices.of(machine)));
        offers.put(n.name(), offer);
      }
      out.add(offer.offer());
    }
    return out;
  }
}
