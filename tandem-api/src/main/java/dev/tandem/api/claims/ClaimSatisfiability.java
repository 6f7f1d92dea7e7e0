package dev.tandem.api.claims;

import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether any node could ever be given a claim: {@link ClaimMatcher} on each node's devices, all
 * free ({@link NodeDevices}). When none can, it says why (what the claim asks that no node has) and
 * what comes nearest: the largest group of devices one value of a constrained attribute holds, and
 * the claim {@code ./tandem claim} writes for the same devices under Tandem's rule when some node
 * can be given that one.
 *
 * <p>An HCA counts as many times as the claim asks HCAs: in the driver's {@code shared} mode one
 * HCA may be given to several requests of a claim, and the judgement must not depend on the mode.
 * So it reports GPUs missing, and GPUs and HCAs that no value of an attribute holds together, never
 * HCAs missing alone. Pure.
 */
public final class ClaimSatisfiability {

  /** One node's devices, all free, with their {@link DeviceSignature} (worked out when asked). */
  public static final class NodeOffer {
    private final String node;
    private final List<DraDevice> devices;
    private DeviceSignature signature;

    public NodeOffer(String node, List<DraDevice> devices) {
      this.node = node;
      this.devices = List.copyOf(devices);
    }

    /** The node's name. */
    public String node() {
      return node;
    }

    /** The node's devices, in its order. */
    public List<DraDevice> devices() {
      return devices;
    }

    /**
     * The devices' signature, computed on the first call and kept: keep the offer while the node's
     * devices are the same, and it is computed once per change. (Two threads may both compute it;
     * either answer is the same immutable value.)
     */
    public DeviceSignature signature() {
      DeviceSignature s = signature;
      if (s == null) {
        s = DeviceSignature.of(devices);
        signature = s;
      }
      return s;
    }

    @Override
    public String toString() {
      return "NodeOffer[" + node + ", " + devices.size() + " devices]";
    }
  }

  /**
   * Why no node can be given the claim.
   *
   * @param what the request or constraint that no node meets, and the most any node offers
   * @param nearest what to ask instead, or null when nothing near is known
   */
  public record Unsatisfiable(String what, String nearest) {

    /** The sentence for an Event: {@code claim <name>: <what>[; <nearest>]}. */
    public String message(String claim) {
      return "claim " + claim + ": " + what + (nearest == null ? "" : "; " + nearest);
    }
  }

  private static final Map<String, Alignment> ALIGNMENTS = new LinkedHashMap<>();

  static {
    for (Alignment a : Alignment.values()) {
      String attribute = ClaimGenerator.attribute(a);
      if (attribute != null) {
        ALIGNMENTS.put(attribute, a);
      }
    }
  }

  private ClaimSatisfiability() {}

  /**
   * The first node of each {@link DeviceSignature}, in the nodes' order: {@link #judge} gives the
   * same answer, in the same words, on these as on all the nodes (every node it names is the first
   * of its signature, and the others are the same to every match), with one match per signature
   * instead of one per node.
   */
  public static List<NodeOffer> distinct(List<NodeOffer> nodes) {
    Map<DeviceSignature, NodeOffer> first = new LinkedHashMap<>();
    for (NodeOffer n : nodes) {
      first.putIfAbsent(n.signature(), n);
    }
    return List.copyOf(first.values());
  }

  /**
   * Empty when some node can be given the claim, or when no node is known (nothing to judge by).
   * Every node is matched: give it {@link #distinct} nodes.
   */
  public static Optional<Unsatisfiable> judge(DeviceClaimSpec claim, List<NodeOffer> nodes) {
    List<NodeOffer> shared = sharedHcas(nodes, hcasAsked(claim));
    if (nodes.isEmpty() || anyNode(claim, shared)) {
      return Optional.empty();
    }
    String what = tooMany(claim, nodes);
    if (what == null) {
      what = constraintNoNodeMeets(claim, nodes, shared);
    }
    if (what == null) {
      what =
          "no node has all it asks together (each class and each constraint alone fits some node)";
    }
    return Optional.of(new Unsatisfiable(what, nearest(claim, shared)));
  }

  /** The most HCAs any choice of the claim's alternatives asks. */
  private static int hcasAsked(DeviceClaimSpec claim) {
    int n = 0;
    for (ClaimRequest r : claim.requests()) {
      n +=
          r.choices().stream()
              .filter(c -> c.deviceClass().equals(ClaimGenerator.HCA_CLASS))
              .mapToInt(DeviceChoice::count)
              .max()
              .orElse(0);
    }
    return n;
  }

  /** Each HCA {@code copies} times, next to itself in the node's order. */
  private static List<NodeOffer> sharedHcas(List<NodeOffer> nodes, int copies) {
    List<NodeOffer> out = new ArrayList<>();
    for (NodeOffer n : nodes) {
      List<DraDevice> devices = new ArrayList<>();
      for (DraDevice d : n.devices()) {
        boolean hca = d.deviceClass().equals(ClaimGenerator.HCA_CLASS);
        for (int i = 0; i < (hca ? Math.max(1, copies) : 1); i++) {
          devices.add(
              i == 0 ? d : new DraDevice(d.name() + "#" + i, d.deviceClass(), d.attributes()));
        }
      }
      out.add(new NodeOffer(n.node(), devices));
    }
    return out;
  }

  private static boolean anyNode(DeviceClaimSpec claim, List<NodeOffer> nodes) {
    ClaimMatcher matcher = ClaimMatcher.of(claim);
    return nodes.stream().anyMatch(n -> matcher.allocate(n.devices()).isPresent());
  }

  /**
   * A class of which the claim asks more devices than any node has, said with the most; for HCAs
   * only when no node has any (one may be shared by all the claim's requests).
   */
  private static String tooMany(DeviceClaimSpec claim, List<NodeOffer> nodes) {
    for (Map.Entry<String, Integer> need : need(claim.requests()).entrySet()) {
      boolean hca = need.getKey().equals(ClaimGenerator.HCA_CLASS);
      String best = null;
      int most = 0;
      for (NodeOffer n : nodes) {
        int have =
            (int) n.devices().stream().filter(d -> d.deviceClass().equals(need.getKey())).count();
        if (have > most) {
          most = have;
          best = n.node();
        }
      }
      if ((hca ? 1 : need.getValue()) > most) {
        return "its requests ask for "
            + devices(need.getKey(), need.getValue())
            + (most == 0
                ? " and no node has any"
                : " and no node has that many; the most is " + most + " (" + best + ")");
      }
    }
    return null;
  }

  /** The first constraint that no node meets even alone, with the largest group any node has. */
  private static String constraintNoNodeMeets(
      DeviceClaimSpec claim, List<NodeOffer> nodes, List<NodeOffer> shared) {
    for (MatchConstraint c : claim.constraints()) {
      List<ClaimRequest> named = claim.requests().stream().filter(r -> names(c, r)).toList();
      DeviceClaimSpec alone = new DeviceClaimSpec(named, List.of(c));
      if (named.isEmpty() || anyNode(alone, shared)) {
        continue;
      }
      Map<String, Integer> need = need(named);
      return "constraint matchAttribute "
          + c.attribute()
          + " on "
          + named.stream().map(ClaimRequest::name).toList()
          + " asks "
          + describe(need)
          + " with one value of "
          + c.attribute()
          + " and no node has that; "
          + largestGroup(c.attribute(), need, nodes);
    }
    return null;
  }

  private static boolean names(MatchConstraint c, ClaimRequest r) {
    return c.requests().isEmpty()
        || c.requests().contains(r.name())
        || c.requests().stream().anyMatch(n -> n.startsWith(r.name() + "/"));
  }

  /** The value of the attribute holding most of the devices a constraint needs, on any node. */
  private static String largestGroup(
      String attribute, Map<String, Integer> need, List<NodeOffer> nodes) {
    Map<String, Integer> bestCounts = null;
    String bestWhere = null;
    int bestFit = -1;
    for (NodeOffer n : nodes) {
      Map<String, Map<String, Integer>> byValue = new LinkedHashMap<>();
      n.devices().stream()
          .filter(d -> d.attributes().containsKey(attribute) && need.containsKey(d.deviceClass()))
          .forEach(
              d ->
                  byValue
                      .computeIfAbsent(d.attributes().get(attribute), v -> new LinkedHashMap<>())
                      .merge(d.deviceClass(), 1, Integer::sum));
      for (Map.Entry<String, Map<String, Integer>> group : byValue.entrySet()) {
        int fit = 0;
        for (Map.Entry<String, Integer> e : need.entrySet()) {
          fit += Math.min(e.getValue(), group.getValue().getOrDefault(e.getKey(), 0));
        }
        if (fit > bestFit) {
          bestFit = fit;
          bestCounts = group.getValue();
          bestWhere = n.node() + ", " + attribute + "=" + group.getKey();
        }
      }
    }
    if (bestCounts == null) {
      return "no device of these classes has " + attribute;
    }
    Map<String, Integer> shown = new LinkedHashMap<>();
    need.keySet().forEach(k -> shown.put(k, 0));
    shown.putAll(bestCounts);
    return "the most under one value is " + describe(shown) + " (" + bestWhere + ")";
  }

  /**
   * The claim {@code ./tandem claim} writes for the same numbers of GPUs and HCAs under the
   * alignment the constraints name (Tandem's rule: each GPU with an HCA within it, not all under
   * one value), when some node can be given it.
   */
  private static String nearest(DeviceClaimSpec claim, List<NodeOffer> nodes) {
    Set<String> attributes = new TreeSet<>();
    claim.constraints().forEach(c -> attributes.add(c.attribute()));
    Map<String, Integer> need = need(claim.requests());
    int gpus = need.getOrDefault(ClaimGenerator.GPU_CLASS, 0);
    int hcas = need.getOrDefault(ClaimGenerator.HCA_CLASS, 0);
    if (attributes.size() != 1 || gpus == 0 || hcas == 0) {
      return null;
    }
    Alignment alignment = ALIGNMENTS.get(attributes.iterator().next());
    if (alignment == null) {
      return null;
    }
    for (AlignmentMode mode : List.of(AlignmentMode.REQUIRED, AlignmentMode.PREFERRED)) {
      AllocationRequest request =
          new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
      Optional<String> node = generatedFits(request, nodes);
      if (node.isPresent()) {
        return "Tandem's rule for "
            + request.describe()
            + " (each GPU with an HCA under one value, not all under one) can be met ("
            + node.get()
            + "): `./tandem claim --gpus "
            + gpus
            + " --hcas "
            + hcas
            + " --alignment "
            + alignment.value()
            + (mode == AlignmentMode.PREFERRED ? " --mode preferred" : "")
            + "` writes that claim";
      }
    }
    return null;
  }

  private static Optional<String> generatedFits(AllocationRequest request, List<NodeOffer> nodes) {
    DeviceClaimSpec generated;
    try {
      generated = ClaimGenerator.claim(request);
    } catch (InexpressibleClaimException e) {
      return Optional.empty();
    }
    ClaimMatcher matcher = ClaimMatcher.of(generated);
    return nodes.stream()
        .filter(n -> matcher.allocate(n.devices()).isPresent())
        .map(NodeOffer::node)
        .findFirst();
  }

  private static Map<String, Integer> need(List<ClaimRequest> requests) {
    return new DeviceClaimSpec(requests, List.of()).leastPerClass();
  }

  private static String describe(Map<String, Integer> counts) {
    List<String> parts = new ArrayList<>();
    counts.forEach((k, v) -> parts.add(devices(k, v)));
    return String.join(" and ", parts);
  }

  private static String devices(String deviceClass, int n) {
    String noun =
        switch (deviceClass) {
          case ClaimGenerator.GPU_CLASS -> "GPU";
          case ClaimGenerator.HCA_CLASS -> "HCA";
          default -> deviceClass + " device";
        };
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
