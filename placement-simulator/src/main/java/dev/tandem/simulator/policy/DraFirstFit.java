package dev.tandem.simulator.policy;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.ClaimLimits;
import dev.tandem.api.claims.ClaimMatcher;
import dev.tandem.api.claims.ClaimRequest;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.api.claims.DraDevice;
import dev.tandem.api.claims.InexpressibleClaimException;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.simulator.dra.ExtendedResourceClaim;
import dev.tandem.simulator.dra.PublishedDevices;
import dev.tandem.simulator.engine.ClusterState;
import dev.tandem.simulator.engine.Decision;
import dev.tandem.simulator.engine.NodeState;
import dev.tandem.simulator.engine.Placement;
import dev.tandem.simulator.engine.PlacementPolicy;
import dev.tandem.simulator.workload.PodSpec;
import dev.tandem.topology.allocation.Allocation;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Function;

/**
 * DRA as kube-scheduler runs it, on Tandem's DRA driver's slices, for a pod that asks its devices
 * through the claim Tandem's generator writes for its shape and policy ({@link ClaimGenerator}), or
 * ({@link #extendedResources()}) for a pod that asks them as the extended resources {@code
 * nvidia.com/gpu} and {@code rdma/hca}, served through DRA (KEP-5004): the claim kube-scheduler
 * writes for it has no constraints ({@link ExtendedResourceClaim}).
 *
 * <p>Filter: the DynamicResources plugin runs the structured allocator on each node ({@link
 * ClaimMatcher} on the node's {@link PublishedDevices}); a node where the claim cannot be allocated
 * is dropped. Score: NodeResourcesFit does not see DRA devices, and its default scoring (cpu and
 * memory) ties the GPU nodes, as for {@link StockKubernetes}; the only score that tells nodes apart
 * is the DynamicResources plugin's own (kube-scheduler 1.34 to 1.37, with the prioritized list):
 * {@code 8 − i} for every request allocated through its alternative {@code i}, normalized to 0..100
 * by the best node ({@code DefaultNormalizeScore}), weight 2. Ties are drawn at random, as {@code
 * selectHost} does. The node then gets exactly the allocator's first fit.
 *
 * <p>With Tandem's extender ({@link #withTandemScore()}, {@link #extendedResourcesWithTandem()}),
 * it filters the nodes too (the allocator must meet the pod's policy there: for a generated claim
 * the same nodes the claim fits, {@code GeneratedClaimPropertyTest}) and scores them (its
 * prioritize, the allocator's {@code PlacementScore} 0..10, times the chart's weight 5 times 10, as
 * {@link TandemScheduler} models it), while the devices are still the DRA first fit: what Tandem's
 * node choice adds.
 *
 * <p>A pod whose claim no node can meet waits (kube-scheduler keeps it unschedulable); a shape the
 * generator cannot express is refused, as its claim template could not be written.
 */
public final class DraFirstFit implements PlacementPolicy {

  /** The DynamicResources plugin's weight in kube-scheduler's default profile. */
  static final int DRA_WEIGHT = 2;

  /** The extender's 0..10 score times this is its part of the node's total (weight 5 × 10). */
  static final int EXTENDER_FACTOR = 5 * 10;

  private static final int MAX_NODE_SCORE = 100;

  private final String name;
  private final String description;
  private final boolean tandemScore;
  private final Function<AllocationRequest, DeviceClaimSpec> claimOf;
  private final Map<AllocationRequest, Claim> claims = new HashMap<>();
  private final Map<Integer, Published> published = new HashMap<>();

  private DraFirstFit(
      String name,
      String description,
      boolean tandemScore,
      Function<AllocationRequest, DeviceClaimSpec> claimOf) {
    this.name = name;
    this.description = description;
    this.tandemScore = tandemScore;
    this.claimOf = claimOf;
  }

  /** kube-scheduler alone: the DynamicResources plugin filters and scores. */
  public static DraFirstFit alone() {
    return new DraFirstFit(
        "dra",
        "DRA with Tandem's generated claims as kube-scheduler runs it: first fit over the"
            + " published devices, nodes scored by the prioritized list only",
        false,
        ClaimGenerator::claim);
  }

  /** kube-scheduler with Tandem's extender ranking the nodes; devices still by DRA's first fit. */
  public static DraFirstFit withTandemScore() {
    return new DraFirstFit(
        "dra-tandem-score",
        "DRA with Tandem's generated claims, nodes scored by Tandem's extender too, devices by the"
            + " structured allocator's first fit",
        true,
        ClaimGenerator::claim);
  }

  /** kube-scheduler alone, the pod asking extended resources that DRA serves (KEP-5004). */
  public static DraFirstFit extendedResources() {
    return new DraFirstFit(
        "dra-ext",
        "extended resources served through DRA (KEP-5004) as kube-scheduler runs it: a claim"
            + " without constraints, the first free devices of each class, nodes tied",
        false,
        ExtendedResourceClaim::of);
  }

  /**
   * The pod asking extended resources that DRA serves, Tandem's extender filtering and scoring the
   * nodes (it governs pods that ask its resources); devices still by DRA's first fit.
   */
  public static DraFirstFit extendedResourcesWithTandem() {
    return new DraFirstFit(
        "dra-ext-tandem-score",
        "extended resources served through DRA (KEP-5004), nodes filtered and scored by Tandem's"
            + " extender, devices by the structured allocator's first fit",
        true,
        ExtendedResourceClaim::of);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public Decision place(PodSpec pod, ClusterState state, Random random) {
    Claim claim;
    try {
      claim = claims.computeIfAbsent(pod.request(), r -> Claim.of(claimOf.apply(r)));
    } catch (InexpressibleClaimException e) {
      return new Decision.Rejected(e.getMessage());
    }
    List<Candidate> fit = new ArrayList<>();
    int bestDra = 0;
    for (int i = 0; i < state.nodes().size(); i++) {
      Optional<Candidate> c = candidate(i, claim, pod, state);
      if (c.isPresent()) {
        bestDra = Math.max(bestDra, c.get().draScore);
        fit.add(c.get());
      }
    }
    if (fit.isEmpty()) {
      return new Decision.Wait(
          tandemScore
              ? "no node can allocate the pod's claim and meet its policy now"
              : "no node can allocate the pod's claim now");
    }
    Candidate chosen = selectHost(fit, bestDra, random);
    return new Decision.Placed(placement(chosen, state.node(chosen.node)));
  }

  /**
   * The node as a candidate when the claim can be allocated there and, with Tandem's extender, the
   * allocator meets the pod's policy there (the extender's filter).
   */
  private Optional<Candidate> candidate(int i, Claim claim, PodSpec pod, ClusterState state) {
    Optional<List<ClaimMatcher.Result>> picks = claim.matcher.allocate(devices(i, state));
    if (picks.isEmpty()) {
      return Optional.empty();
    }
    int extender = 0;
    if (tandemScore) {
      NodeState n = state.node(i);
      if (!(n.node().allocator().allocate(pod.request(), n.free()) instanceof Allocation a)) {
        return Optional.empty();
      }
      extender = a.score();
    }
    return Optional.of(new Candidate(i, picks.get(), claim.score(picks.get()), extender));
  }

  /** The nodes with the top total, one drawn uniformly at random. */
  private static Candidate selectHost(List<Candidate> fit, int bestDra, Random random) {
    List<Candidate> top = new ArrayList<>();
    long bestTotal = Long.MIN_VALUE;
    for (Candidate c : fit) {
      long total = total(c, bestDra);
      if (total > bestTotal) {
        top.clear();
        bestTotal = total;
      }
      if (total == bestTotal) {
        top.add(c);
      }
    }
    return top.get(random.nextInt(top.size()));
  }

  private static long total(Candidate c, int bestDra) {
    long dra = bestDra == 0 ? 0 : (long) MAX_NODE_SCORE * c.draScore / bestDra;
    return DRA_WEIGHT * dra + (long) EXTENDER_FACTOR * c.extenderScore;
  }

  private List<DraDevice> devices(int node, ClusterState state) {
    NodeState n = state.node(node);
    Published p = published.get(node);
    if (p == null || !p.free.equals(n.free())) {
      p = new Published(n.free(), PublishedDevices.offered(n.free()));
      published.put(node, p);
    }
    return p.devices;
  }

  private static Placement placement(Candidate c, NodeState node) {
    Map<String, Device> byDraName = new HashMap<>();
    node.node().index().devices().forEach(d -> byDraName.put(DeviceIds.draName(d), d));
    List<String> gpus = new ArrayList<>();
    List<String> hcas = new ArrayList<>();
    for (ClaimMatcher.Result r : c.picks) {
      Device d = byDraName.get(r.device());
      (d.kind() == DeviceKind.GPU ? gpus : hcas).add(d.id());
    }
    return new Placement(c.node, gpus, hcas);
  }

  /**
   * A node the claim can be allocated on, its first fit, the DynamicResources raw score and the
   * extender's 0..10 score (0 without Tandem).
   */
  private record Candidate(
      int node, List<ClaimMatcher.Result> picks, int draScore, int extenderScore) {}

  /** A node's published devices for one state of its free devices. */
  private record Published(Availability free, List<DraDevice> devices) {}

  /** One pod shape's claim: its matcher and each alternative's rank. */
  private record Claim(ClaimMatcher matcher, Map<String, Integer> rank) {

    static Claim of(DeviceClaimSpec spec) {
      Map<String, Integer> rank = new HashMap<>();
      for (ClaimRequest r : spec.requests()) {
        if (!r.exactly()) {
          for (int i = 0; i < r.choices().size(); i++) {
            rank.put(r.ref(r.choices().get(i)), i);
          }
        }
      }
      return new Claim(ClaimMatcher.of(spec), rank);
    }

    /** {@code 8 − i} per request allocated through its alternative {@code i}. */
    int score(List<ClaimMatcher.Result> picks) {
      return picks.stream()
          .map(ClaimMatcher.Result::request)
          .distinct()
          .mapToInt(ref -> rank.containsKey(ref) ? ClaimLimits.ALTERNATIVES - rank.get(ref) : 0)
          .sum();
    }
  }
}
