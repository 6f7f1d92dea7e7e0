package dev.tandem.extender.inspect;

import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.extender.state.AssumedPlan;
import dev.tandem.extender.state.ClusterState;
import dev.tandem.extender.state.NodeEntry;
import dev.tandem.extender.state.ReportedAllocation;
import dev.tandem.extender.verbs.NodeEvaluator;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.allocation.Verdict;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.PcieNode;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The JSON of {@code GET /topology/nodes} and {@code GET /topology/nodes/{node}}. */
public final class Inspection {

  private static final AlignmentPolicy ANYWHERE =
      new AlignmentPolicy(Alignment.NONE, AlignmentMode.REQUIRED);
  private static final int[] PAIRS = {1, 2, 4, 8};

  private final ClusterState state;
  private final NodeEvaluator evaluator;

  public Inspection(ClusterState state, NodeEvaluator evaluator) {
    this.state = state;
    this.evaluator = evaluator;
  }

  public JsonObject nodes() {
    JsonArray out = new JsonArray();
    for (NodeEntry e : state.nodes()) {
      out.add(summary(e));
    }
    return new JsonObject().put("nodes", out);
  }

  /** The node's tree, devices with their state, allocations and assumed plans; null if unknown. */
  public JsonObject node(String name) {
    NodeEntry e = state.node(name);
    if (e == null) {
      return null;
    }
    JsonObject out = summary(e);
    out.put("pcie", new JsonArray(e.machine().pcie().stream().map(Inspection::pcie).toList()));
    out.put("devices", devices(e));
    out.put(
        "allocations",
        new JsonArray(e.allocations().stream().map(Inspection::allocation).toList()));
    out.put(
        "assumed", new JsonArray(e.assumed().values().stream().map(Inspection::assumed).toList()));
    out.put("mig", new JsonArray(e.mig().entries().stream().map(Inspection::mig).toList()));
    return out;
  }

  /** As the agent published it ({@code status.mig}): a GPU's id and its MIG devices' ids. */
  private static JsonObject mig(MigEntry m) {
    return new JsonObject().put("gpu", m.gpu()).put("devices", new JsonArray(m.devices()));
  }

  private JsonObject summary(NodeEntry e) {
    Availability free = e.free();
    JsonObject best = new JsonObject();
    for (int n : PAIRS) {
      Verdict v = evaluator.evaluate(e, new AllocationRequest(n, n, ANYWHERE));
      best.put(Integer.toString(n), v.feasible() ? v.worst().name() : null);
    }
    return new JsonObject()
        .put("name", e.name())
        .put("source", e.machine().source())
        .put("gpus", counts(free, DeviceKind.GPU))
        .put("hcas", counts(free, DeviceKind.HCA))
        .put("switches", e.machine().switches().size())
        .put("numaNodes", new JsonArray(e.machine().numaNodes()))
        .put("bestLocality", best)
        .put("slotsPerHca", e.slotsPerHca())
        .put("version", e.version())
        .put("updatedAt", e.updatedAt().toString())
        .put("assumedPlans", e.assumed().size())
        .put(
            "claims",
            e.allocations().stream()
                .map(ReportedAllocation::claim)
                .filter(c -> c != null)
                .distinct()
                .count());
  }

  private static JsonObject counts(Availability free, DeviceKind kind) {
    int total = 0;
    List<Device> devices = free.index().devices();
    for (int i = 0; i < devices.size(); i++) {
      if (devices.get(i).kind() == kind) {
        total += kind == DeviceKind.GPU ? 1 : Math.max(1, free.capacity(i));
      }
    }
    return new JsonObject().put("free", free.freeUnits(kind)).put("total", total);
  }

  /**
   * What the extender counts for the device: the units it could grant now and when all are free.
   */
  private static JsonObject units(Availability free, String deviceId) {
    int i = free.index().indexOf(deviceId);
    return new JsonObject().put("free", free.free(i)).put("total", free.capacity(i));
  }

  private static JsonObject pcie(PcieNode n) {
    return new JsonObject()
        .put("id", n.id())
        .put("kind", n.kind().name())
        .put("parent", n.parentId())
        .put("address", n.address() == null ? null : n.address().toString())
        .put("vendor", hex(n.vendorId()))
        .put("device", hex(n.deviceId()))
        .put("numaNodes", new JsonArray(n.numaNodes()));
  }

  private static JsonArray devices(NodeEntry e) {
    Map<String, PcieNode> nodes =
        e.machine().pcie().stream().collect(Collectors.toMap(PcieNode::id, Function.identity()));
    Map<String, JsonObject> assumedBy = new HashMap<>();
    for (AssumedPlan p : e.assumed().values()) {
      JsonObject pod = pod(p.pod().namespace(), p.pod().name(), p.pod().uid());
      p.gpus().forEach(id -> assumedBy.put(id, pod));
      p.hcas().forEach(id -> assumedBy.put(id, pod));
    }
    // reported ids are the kubelet's (a shared slot, a VF's address, a replica, a MIG device):
    // keyed by tree id
    DeviceIds ids = e.ids();
    Map<String, JsonObject> allocatedTo = new HashMap<>();
    Map<String, String> claimOf = new HashMap<>();
    for (ReportedAllocation a : e.allocations()) {
      JsonObject pod = pod(a.namespace(), a.pod(), a.uid());
      for (String id : a.deviceIds()) {
        String device = ids.device(id).map(Device::id).orElse(id);
        allocatedTo.put(device, pod);
        if (a.claim() != null) {
          claimOf.put(device, a.claim());
        }
      }
    }
    Availability free = e.free();
    JsonArray out = new JsonArray();
    for (Device d : e.machine().devices()) {
      String sw = LocalityIndex.switchOf(d, nodes);
      String state =
          !d.healthy()
              ? "unhealthy"
              : allocatedTo.containsKey(d.id())
                  ? "allocated"
                  : assumedBy.containsKey(d.id()) ? "assumed" : "free";
      JsonObject pod = allocatedTo.getOrDefault(d.id(), assumedBy.get(d.id()));
      out.add(
          new JsonObject()
              .put("id", d.id())
              .put("kind", d.kind().name())
              .put("name", d.name())
              .put("address", d.address() == null ? null : d.address().toString())
              .put("numaNode", d.numaNode())
              .put("parent", d.parentId())
              .put("switch", sw.startsWith("device:") ? null : sw)
              .put("healthy", d.healthy())
              .put("state", state)
              .put("units", units(free, d.id()))
              .put("pod", pod)
              .put("claim", claimOf.get(d.id()))
              .put("model", d.model())
              .put("hca", d.hca() == null ? null : hca(d.hca())));
    }
    return out;
  }

  private static JsonObject hca(HcaInfo h) {
    return new JsonObject()
        .put("ibDevice", h.ibDevice())
        .put("linkLayer", h.linkLayer())
        .put("portState", h.portState())
        .put("rate", h.rate())
        .put("nodeGuid", h.nodeGuid())
        .put("netdevs", new JsonArray(h.netdevs()))
        .put("uverbs", h.uverbs())
        .put("virtualFunction", h.virtualFunction())
        .put(
            "physicalFunction",
            h.physicalFunction() == null ? null : h.physicalFunction().toString());
  }

  private static JsonObject allocation(ReportedAllocation a) {
    return new JsonObject()
        .put("namespace", a.namespace())
        .put("pod", a.pod())
        .put("uid", a.uid())
        .put("container", a.container())
        .put("resource", a.resource())
        .put("deviceIds", new JsonArray(a.deviceIds()))
        .put("claim", a.claim())
        .put("driver", a.driver());
  }

  private static JsonObject assumed(AssumedPlan p) {
    return new JsonObject()
        .put("namespace", p.pod().namespace())
        .put("pod", p.pod().name())
        .put("uid", p.pod().uid())
        .put("gpus", new JsonArray(p.gpus()))
        .put("hcas", new JsonArray(p.hcas()))
        .put("locality", p.locality().name())
        .put("policy", p.policy().toString())
        .put("plannedAt", p.plannedAt().toString())
        .put("expiresAt", p.expiresAt().toString());
  }

  private static JsonObject pod(String namespace, String name, String uid) {
    return new JsonObject().put("namespace", namespace).put("name", name).put("uid", uid);
  }

  private static String hex(int id) {
    return id < 0 ? null : String.format("%04x", id);
  }
}
