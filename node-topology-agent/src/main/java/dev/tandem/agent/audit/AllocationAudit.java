package dev.tandem.agent.audit;

import dev.tandem.api.Annotations;
import dev.tandem.api.ResourceNames;
import dev.tandem.api.crd.AllocationEntry;
import dev.tandem.api.crd.AuditEntry;
import dev.tandem.api.dra.DraDriver;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.api.plan.PlanCodec;
import dev.tandem.kubelet.podresources.PodDevices;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Locality;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.InvalidPolicyException;
import dev.tandem.topology.rail.RailSets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Compares what the kubelet allocated with the node's tree: allocations per container (complete or
 * still in progress) and, for every pod holding both GPUs and HCAs, the actual worst locality
 * against its policy. Pure: no I/O.
 *
 * <p>Worst locality: for each of the pod's GPUs the nearest of its HCAs, and for each HCA the
 * nearest GPU; the worst of those. A pod is audited only once all its GPU and HCA allocations are
 * complete, because the kubelet records each resource separately and a half-allocated pod says
 * nothing yet. Its entry also records the rails of its HCAs on the tree (docs/rails.md), which the
 * extender compares across a gang.
 *
 * <p>Devices a pod holds through DRA ResourceClaims count as its GPUs and HCAs alike, read back to
 * the tree through {@link ClaimDeviceMapping}: a pod whose GPUs come from a claim and HCAs from the
 * device plugin, or both from claims, is audited as one holding them from device plugins. A claim
 * is listed once per pod (under the first container the kubelet lists it for), one entry per
 * resource, with the tree's ids of its devices.
 */
public final class AllocationAudit {

  private final AlignmentPolicy defaults;
  private final ResourceNames resources;
  private final String draDriver;

  /**
   * An audit that reads the DRA devices of Tandem's driver under its default name.
   *
   * @param defaults the policy of pods without alignment annotations
   * @param resources the GPU and HCA resources as the device plugins register them
   */
  public AllocationAudit(AlignmentPolicy defaults, ResourceNames resources) {
    this(defaults, resources, DraDriver.DEFAULT_NAME);
  }

  /**
   * @param defaults the policy of pods without alignment annotations
   * @param resources the GPU and HCA resources as the device plugins register them
   * @param draDriver Tandem's DRA driver name
   */
  public AllocationAudit(AlignmentPolicy defaults, ResourceNames resources, String draDriver) {
    this.defaults = defaults;
    this.resources = resources;
    this.draDriver = draDriver;
  }

  /** Tandem's DRA driver name, whose devices are read by their names. */
  public String draDriver() {
    return draDriver;
  }

  /** The GPU and HCA resources audited. */
  public ResourceNames resources() {
    return resources;
  }

  private record Pair(String gpu, String hca, Locality locality) {}

  /**
   * Audits one PodResources listing.
   *
   * @param listed what the kubelet lists
   * @param pods Pod objects on this node by {@link PodFacts#key()}
   * @param machine the node's tree; null when discovery has not succeeded yet (no audit then)
   */
  public AuditReport audit(List<PodDevices> listed, Map<String, PodFacts> pods, Machine machine) {
    return audit(listed, pods, machine, MigLayout.NONE);
  }

  /**
   * Audits one PodResources listing, reading MIG ids through the node's MIG layout.
   *
   * @param mig which GPU each MIG device belongs to
   */
  public AuditReport audit(
      List<PodDevices> listed, Map<String, PodFacts> pods, Machine machine, MigLayout mig) {
    return audit(listed, pods, machine, mig, Map.of());
  }

  /**
   * Audits one PodResources listing, reading other DRA drivers' devices through their PCI address.
   *
   * @param pciBusIds other DRA drivers' devices on this node, by {@link ClaimDeviceMapping#key}
   */
  public AuditReport audit(
      List<PodDevices> listed,
      Map<String, PodFacts> pods,
      Machine machine,
      MigLayout mig,
      Map<String, String> pciBusIds) {
    List<AllocationEntry> allocations = new ArrayList<>();
    List<AuditEntry> audit = new ArrayList<>();
    List<Violation> violations = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    Map<String, List<PodDevices>> byPod = new LinkedHashMap<>();
    listed.forEach(
        c ->
            byPod
                .computeIfAbsent(PodFacts.key(c.namespace(), c.pod()), k -> new ArrayList<>())
                .add(c));
    Reading tree =
        machine == null
            ? null
            : new Reading(
                LocalityIndex.of(machine),
                DeviceIds.of(machine, mig),
                new ClaimDeviceMapping(
                    draDriver, machine.nodeName(), DeviceIds.of(machine, mig), pciBusIds));
    for (Map.Entry<String, List<PodDevices>> e : byPod.entrySet()) {
      PodFacts facts = pods.get(e.getKey());
      boolean complete = true;
      for (PodDevices c : e.getValue()) {
        complete &= entries(c, facts, allocations);
      }
      List<Device> claimed =
          new ClaimEntries(facts, tree == null ? null : tree.claims(), resources)
              .add(e.getValue(), allocations, notes);
      if (tree != null && complete && facts != null) {
        alignment(facts, e.getValue(), claimed, tree, audit, violations, notes);
      }
    }
    return new AuditReport(allocations, audit, violations, notes);
  }

  /** Adds the container's entries; true when every GPU/HCA resource reached its limit. */
  private boolean entries(PodDevices c, PodFacts facts, List<AllocationEntry> out) {
    TreeSet<String> held = new TreeSet<>(c.devices().keySet());
    if (facts != null) {
      for (String r : List.of(resources.gpu(), resources.hca())) {
        if (facts.limit(c.container(), r) > 0) {
          held.add(r);
        }
      }
    }
    boolean all = true;
    for (String resource : held) {
      List<String> ids = c.ids(resource);
      boolean complete = facts != null && ids.size() >= facts.limit(c.container(), resource);
      all &= complete || !resources.governs(resource);
      out.add(
          new AllocationEntry(
              facts == null ? "" : facts.uid(),
              c.namespace(),
              c.pod(),
              c.container(),
              resource,
              ids,
              complete));
    }
    return all;
  }

  /** The node's tree as the audit reads it: its locality index and its id mappings. */
  private record Reading(LocalityIndex index, DeviceIds ids, ClaimDeviceMapping claims) {}

  private void alignment(
      PodFacts facts,
      List<PodDevices> containers,
      List<Device> claimed,
      Reading tree,
      List<AuditEntry> audit,
      List<Violation> violations,
      List<String> notes) {
    List<Integer> gpus = new ArrayList<>();
    List<Integer> hcas = new ArrayList<>();
    for (PodDevices c : containers) {
      known(facts, c.ids(resources.gpu()), DeviceKind.GPU, tree, gpus, notes);
      known(facts, c.ids(resources.hca()), DeviceKind.HCA, tree, hcas, notes);
    }
    for (Device d : claimed) {
      List<Integer> out = d.kind() == DeviceKind.GPU ? gpus : hcas;
      int i = tree.index().indexOf(d.id());
      if (!out.contains(i)) {
        out.add(i);
      }
    }
    if (gpus.isEmpty() || hcas.isEmpty()) {
      return;
    }
    LocalityIndex index = tree.index();
    Pair worst = worst(gpus, hcas, index);
    AlignmentPolicy policy = policy(facts, notes);
    boolean met = worst.locality().isWithin(policy.alignment().worstAllowed());
    audit.add(
        new AuditEntry(
            facts.uid(),
            facts.namespace(),
            facts.name(),
            worst.locality().name(),
            policy.toString(),
            met,
            List.copyOf(RailSets.of(index.machine(), ids(hcas, index)))));
    if (!met) {
      violations.add(
          new Violation(
              facts.uid(),
              facts.namespace(),
              facts.name(),
              worst.locality(),
              policy,
              worst.gpu(),
              worst.hca()));
    }
  }

  private static List<String> ids(List<Integer> indices, LocalityIndex index) {
    return indices.stream().map(i -> index.devices().get(i).id()).toList();
  }

  private static void known(
      PodFacts facts,
      List<String> ids,
      DeviceKind kind,
      Reading tree,
      List<Integer> out,
      List<String> notes) {
    for (String id : ids) {
      Integer i =
          tree.ids()
              .device(id)
              .filter(d -> d.kind() == kind)
              .map(Device::id)
              .map(tree.index()::indexOf)
              .orElse(null);
      if (i == null) {
        notes.add(
            "pod "
                + facts.key()
                + " holds "
                + kind
                + " "
                + id
                + ", which is not in this node's topology;"
                + " its alignment is not audited (does the device plugin use other ids than discovery?)");
      } else if (!out.contains(i)) {
        out.add(i);
      }
    }
  }

  private static Pair worst(List<Integer> gpus, List<Integer> hcas, LocalityIndex index) {
    Pair worst = null;
    for (int g : gpus) {
      worst = worse(worst, nearest(g, hcas, index, true));
    }
    for (int h : hcas) {
      worst = worse(worst, nearest(h, gpus, index, false));
    }
    return worst;
  }

  private static Pair nearest(int from, List<Integer> to, LocalityIndex index, boolean fromGpu) {
    Pair best = null;
    for (int t : to) {
      Locality l = index.locality(from, t);
      if (best == null || l.compareTo(best.locality()) < 0) {
        String a = index.devices().get(from).id();
        String b = index.devices().get(t).id();
        best = fromGpu ? new Pair(a, b, l) : new Pair(b, a, l);
      }
    }
    return best;
  }

  private static Pair worse(Pair a, Pair b) {
    return a == null || b.locality().compareTo(a.locality()) > 0 ? b : a;
  }

  /**
   * The policy the extender planned the pod under, as its plan records it (a node-class default
   * included, which the agent cannot know: docs/extender.md); without a plan, the pod's annotations
   * over the agent's default.
   */
  private AlignmentPolicy policy(PodFacts facts, List<String> notes) {
    String plan = facts.annotations().get(Annotations.PLAN);
    if (plan != null) {
      try {
        String planned = PlanCodec.decode(plan).policy();
        if (planned != null) {
          return AlignmentPolicy.parse(planned);
        }
      } catch (IllegalArgumentException e) {
        notes.add(
            "pod "
                + facts.key()
                + ": its "
                + Annotations.PLAN
                + " names no policy the agent can read ("
                + e.getMessage()
                + "); audited against its annotations");
      }
    }
    try {
      return AlignmentPolicy.fromAnnotations(facts.annotations(), defaults);
    } catch (InvalidPolicyException e) {
      notes.add(
          "pod "
              + facts.key()
              + ": "
              + e.getMessage()
              + "; audited against the default "
              + defaults);
      return defaults;
    }
  }
}
