package dev.tandem.extender.verbs;

import dev.tandem.extender.state.AssignedPod;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.PodSource;
import dev.tandem.topology.allocation.Infeasible;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The preempt verb: of the victims kube-scheduler proposes on each node, keep the fewest whose
 * devices, freed, let the pod meet its policy ({@link VictimSearch}); drop the node when even all
 * of them do not. kube-scheduler then evicts only on the nodes answered, only the pods answered.
 *
 * <ul>
 *   <li>A victim that holds no device here (as the agent reports and the plans promise) is kept:
 *       kube-scheduler chose it for resources Tandem does not see (CPU, memory, other devices).
 *   <li>When the pod fits the node's free devices already, the proposal is kept as it is: the
 *       evictions are for those other resources.
 *   <li>A node whose healthy devices, all free, could never meet the policy is dropped: the filter
 *       marks it unresolvable, so kube-scheduler proposes it only when its own filters failed too.
 *   <li>A node without a NodeTopology: dropped for a pod that {@linkplain PodRequest#needsTopology
 *       needs one}, kept as proposed for any other.
 *   <li>Victims are named by UID only ({@code MetaVictims}); their priority comes from the pod
 *       cache. A UID the cache does not hold yet is ranked as the most important pod (Tandem would
 *       rather not pick a pod it knows nothing about), since kube-scheduler's snapshot vouches that
 *       it is on the node.
 * </ul>
 *
 * <p>A node this extender has never seen, or a victim it knows on another node, is an {@link
 * InvalidPreemption}: kube-scheduler would refuse an answer naming a pod its snapshot does not have
 * on that node, and its caches and ours disagree.
 */
public final class PreemptVerb {

  private static final Logger LOG = LoggerFactory.getLogger(PreemptVerb.class);

  private final ClusterState state;
  private final PodSource pods;

  public PreemptVerb(ClusterState state, PodSource pods) {
    this.state = state;
    this.pods = pods;
  }

  /**
   * Which nodes stay candidates, with which victims.
   *
   * @throws InvalidPreemption naming the node or the victim that contradicts this extender's state
   */
  public PreemptionResult preempt(PodRequest pod, Map<String, ProposedVictims> proposals) {
    Map<String, ChosenVictims> kept = new LinkedHashMap<>();
    Map<String, PreemptOutcome> outcomes = new LinkedHashMap<>();
    for (Map.Entry<String, ProposedVictims> e : proposals.entrySet()) {
      String node = e.getKey();
      ProposedVictims proposed = e.getValue();
      if (!state.knows(node)) {
        throw new InvalidPreemption(
            "node "
                + node
                + " has neither a Node object nor a NodeTopology known to the extender;"
                + " kube-scheduler and the extender must watch the same cluster");
      }
      List<Ranked> victims = ranked(node, proposed);
      NodeEntry entry = state.node(node);
      Decision d;
      if (!pod.interested()) {
        d = new Decision(PreemptOutcome.NOT_INTERESTED, uids(victims));
      } else if (pod.problem() != null) {
        d = new Decision(PreemptOutcome.INVALID_POLICY, List.of());
      } else if (entry == null) {
        d =
            pod.needsTopology()
                ? new Decision(PreemptOutcome.NO_TOPOLOGY, List.of())
                : new Decision(PreemptOutcome.WITHOUT_TOPOLOGY, uids(victims));
      } else {
        d = decide(pod, entry, victims);
      }
      PreemptOutcome outcome = d.outcome();
      List<String> chosen = d.victims();
      outcomes.put(node, outcome);
      if (outcome.kept()) {
        kept.put(
            node, new ChosenVictims(chosen, Math.min(proposed.pdbViolations(), chosen.size())));
      }
      LOG.debug(
          "preempt {}: node {} {}, victims {} of {}",
          pod.pod(),
          node,
          outcome.label(),
          outcome.kept() ? chosen : "none",
          victims.size());
    }
    return new PreemptionResult(kept, outcomes);
  }

  /** A proposed victim with the priority it is ranked by and whether it holds devices here. */
  private record Ranked(String uid, long priority, boolean holdsDevices) {}

  private List<Ranked> ranked(String node, ProposedVictims proposed) {
    NodeEntry entry = state.node(node);
    List<Ranked> out = new ArrayList<>(proposed.pods().size());
    for (ProposedVictim v : proposed.pods()) {
      Integer priority = v.priority();
      String elsewhere = v.node() != null && !v.node().isEmpty() ? v.node() : null;
      String who = v.name() != null ? "pod " + v.name() + " (uid " + v.uid() + ")" : null;
      if (priority == null) {
        AssignedPod known = pods.assigned(v.uid());
        if (known != null) {
          priority = known.priority();
          elsewhere = known.node();
          who = "pod " + known.ref();
        }
      }
      if (elsewhere != null && !elsewhere.equals(node)) {
        throw new InvalidPreemption(
            (who == null ? "pod uid " + v.uid() : who)
                + " is proposed as a victim on node "
                + node
                + " but is on node "
                + elsewhere
                + "; kube-scheduler and the extender must watch the same cluster");
      }
      out.add(
          new Ranked(
              v.uid(),
              priority == null ? Integer.MAX_VALUE : priority,
              entry != null && entry.holdsDevices(v.uid())));
    }
    return out;
  }

  private record Decision(PreemptOutcome outcome, List<String> victims) {}

  /**
   * A node with a topology: the best set of device holders plus every victim that holds none, in
   * kube-scheduler's order; or the node dropped when no set works.
   */
  private static Decision decide(PodRequest pod, NodeEntry entry, List<Ranked> victims) {
    List<VictimSearch.Candidate> holders = new ArrayList<>();
    for (Ranked r : victims) {
      if (r.holdsDevices()) {
        holders.add(new VictimSearch.Candidate(r.uid(), r.priority()));
      }
    }
    VictimSearch search = new VictimSearch(entry, pod.requestOn(entry.name()));
    if (search.fits(Set.of())) {
      return new Decision(PreemptOutcome.DEVICES_FREE, uids(victims));
    }
    if (!search.fits(VictimSearch.uids(holders))) {
      boolean never =
          entry.allocator().allocate(pod.requestOn(entry.name()), entry.free().emptied())
              instanceof Infeasible;
      return new Decision(
          never ? PreemptOutcome.UNRESOLVABLE : PreemptOutcome.NOT_ALIGNED, List.of());
    }
    Set<String> best = VictimSearch.uids(search.best(holders));
    List<String> chosen =
        victims.stream()
            .filter(r -> !r.holdsDevices() || best.contains(r.uid()))
            .map(Ranked::uid)
            .toList();
    return new Decision(
        chosen.size() == victims.size() ? PreemptOutcome.KEPT : PreemptOutcome.TRIMMED, chosen);
  }

  private static List<String> uids(List<Ranked> victims) {
    return victims.stream().map(Ranked::uid).toList();
  }
}
