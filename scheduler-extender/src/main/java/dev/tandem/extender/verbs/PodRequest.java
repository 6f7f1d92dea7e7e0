package dev.tandem.extender.verbs;

import dev.tandem.api.ResourceNames;
import dev.tandem.api.pod.DeviceCountTooLarge;
import dev.tandem.api.pod.DeviceQuantity;
import dev.tandem.api.pod.Gang;
import dev.tandem.api.pod.GangKeys;
import dev.tandem.api.pod.InvalidGang;
import dev.tandem.api.pod.PodContainersMapper;
import dev.tandem.extender.state.PodRef;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.request.ContainerDemand;
import dev.tandem.topology.request.ContainerShare;
import dev.tandem.topology.request.ContainerSplit;
import dev.tandem.topology.request.PodContainers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a pod asks of Tandem: its effective GPU and HCA request and its alignment policy.
 *
 * @param pod namespace, name and UID
 * @param request GPUs, HCAs and policy; null when the policy annotations are invalid
 * @param problem why the pod cannot be placed by Tandem at all (bad annotation, more devices than
 *     any node has); null if none
 * @param init the init containers' demands, in spec order
 * @param app the app containers' demands, in spec order
 * @param gang the gang the pod is in (docs/rails.md), read only for a pod that asks for GPUs or
 *     HCAs; null when in none (or not read)
 */
public record PodRequest(
    PodRef pod,
    AllocationRequest request,
    String problem,
    List<ContainerDemand> init,
    List<ContainerDemand> app,
    Gang gang) {

  public PodRequest {
    init = List.copyOf(init);
    app = List.copyOf(app);
  }

  /** A pod request without container demands (tests, callers that never split). */
  public PodRequest(PodRef pod, AllocationRequest request, String problem) {
    this(pod, request, problem, List.of(), List.of(), null);
  }

  /**
   * Whether the gang's rails filter nodes: {@code tandem.dev/rail-alignment: required}. A gang
   * member that does not say is {@code preferred} (docs/rails.md, "Planning a gang").
   */
  public boolean railsRequired() {
    return gang != null && gang.railAlignment() == AlignmentMode.REQUIRED;
  }

  /**
   * Which of the planned devices each container gets, as the kubelet hands them out (see {@link
   * ContainerSplit}).
   */
  public List<ContainerShare> shares(
      ResourceNames resources, LocalityIndex index, List<String> gpus, List<String> hcas) {
    return new ContainerSplit(resources.gpu(), resources.hca(), index).split(init, app, gpus, hcas);
  }

  /**
   * Whether Tandem governs the pod: it requests GPUs or HCAs as extended resources (the GPU and HCA
   * resource names, limits standing in for requests), or its policy annotations are invalid.
   * Nothing else counts: devices a pod asks for through DRA ResourceClaims ({@code
   * spec.resourceClaims}) are placed by kube-scheduler's DRA allocator, so a pod with claims only
   * passes every node, scores 0 everywhere and is bound without a plan (docs/extender.md, "Which
   * pods Tandem governs").
   */
  public boolean interested() {
    return problem != null || request.gpus() > 0 || request.hcas() > 0;
  }

  /**
   * Whether a node without a NodeTopology must be refused: only for GPUs and HCAs together with
   * {@code required} alignment. A pod that asks for one of the two has no pairing to enforce, and a
   * {@code preferred} one accepts any placement: Tandem is never in the way of either.
   */
  public boolean needsTopology() {
    return request != null && request.paired() && request.policy().mode() == AlignmentMode.REQUIRED;
  }

  /**
   * Reads a v1.Pod as JSON (see {@link PodRequests#of}); throws IllegalArgumentException when it is
   * not shaped like one.
   */
  static PodRequest of(JsonObject pod, AlignmentPolicy defaults, ResourceNames resources) {
    JsonObject meta = object(pod, "metadata");
    JsonObject spec = object(pod, "spec");
    PodRef ref =
        new PodRef(
            meta.getString("namespace", "default"),
            meta.getString("name", ""),
            meta.getString("uid", ""));
    PodContainers containers;
    try {
      containers =
          PodContainersMapper.of(
              containers(spec, "initContainers"), containers(spec, "containers"));
    } catch (DeviceCountTooLarge e) {
      return unschedulable(ref, e.getMessage());
    }
    List<ContainerDemand> init = containers.init();
    List<ContainerDemand> app = containers.app();
    long gpus = containers.effective(resources.gpu());
    long hcas = containers.effective(resources.hca());
    if (gpus == 0 && hcas == 0) {
      return new PodRequest(ref, new AllocationRequest(0, 0, defaults), null, init, app, null);
    }
    if (gpus > DeviceQuantity.MAX_UNITS || hcas > DeviceQuantity.MAX_UNITS) {
      return unschedulable(
          ref, "its containers together ask for " + gpus + " GPUs and " + hcas + " HCAs");
    }
    Map<String, String> annotations = annotations(meta);
    AlignmentPolicy policy;
    try {
      policy = AlignmentPolicy.fromAnnotations(annotations, defaults);
    } catch (IllegalArgumentException e) {
      return new PodRequest(
          ref,
          null,
          "pod "
              + ref.namespace()
              + "/"
              + ref.name()
              + " has an invalid "
              + e.getMessage()
              + " (fix the annotation and recreate the pod)",
          init,
          app,
          null);
    }
    Gang gang;
    try {
      gang =
          GangKeys.of(
                  ref.namespace(),
                  ref.name(),
                  strings(object(meta, "labels")),
                  annotations,
                  schedulingGroup(spec))
              .orElse(null);
    } catch (InvalidGang e) {
      return new PodRequest(ref, null, e.getMessage(), init, app, null);
    }
    return new PodRequest(
        ref, new AllocationRequest((int) gpus, (int) hcas, policy), null, init, app, gang);
  }

  /** {@code spec.schedulingGroup.podGroupName} (the Workload API); null when absent. */
  private static String schedulingGroup(JsonObject spec) {
    Object group = object(spec, "schedulingGroup").getValue("podGroupName");
    return group instanceof String s ? s : null;
  }

  /**
   * A pod that asks for more devices than any node has: the API server accepts it, and every node
   * refuses it with this reason (the container, the resource and the value).
   */
  private static PodRequest unschedulable(PodRef ref, String why) {
    return new PodRequest(
        ref,
        null,
        "pod " + ref.namespace() + "/" + ref.name() + " cannot fit on any node: " + why,
        List.of(),
        List.of(),
        null);
  }

  private static Map<String, String> annotations(JsonObject meta) {
    return strings(object(meta, "annotations"));
  }

  /** A JSON object's string values (labels, annotations). */
  private static Map<String, String> strings(JsonObject a) {
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, Object> e : a) {
      if (e.getValue() instanceof String s) {
        out.put(e.getKey(), s);
      }
    }
    return out;
  }

  /**
   * The containers of {@code spec.<key>} as fabric8 model objects holding what tandem-api's one
   * reading of them uses (name, restart policy, requests and limits); null when absent. Built field
   * by field: a full JSON-to-model conversion cost about 25 µs per container on every verb call.
   */
  private static List<Container> containers(JsonObject spec, String key) {
    Object value = spec.getValue(key);
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray array)) {
      throw new IllegalArgumentException("spec." + key + " is not an array");
    }
    List<Container> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject c)) {
        throw new IllegalArgumentException("spec." + key + " holds a non-object");
      }
      Container container = new Container();
      container.setName(text(c, "name", key, i));
      container.setRestartPolicy(text(c, "restartPolicy", key, i));
      JsonObject r = object(c, "resources");
      ResourceRequirements resources = new ResourceRequirements();
      resources.setRequests(quantities(r, "requests"));
      resources.setLimits(quantities(r, "limits"));
      container.setResources(resources);
      out.add(container);
    }
    return out;
  }

  private static String text(JsonObject c, String field, String key, int i) {
    Object v = c.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw new IllegalArgumentException(
          "spec." + key + "[" + i + "]." + field + " is not a string");
    }
    return (String) v;
  }

  /** A quantity is a JSON string or number, as Kubernetes' own decoder takes it. */
  private static Map<String, Quantity> quantities(JsonObject requirements, String key) {
    JsonObject q = object(requirements, key);
    Map<String, Quantity> out = new HashMap<>(q.size() * 2);
    for (Map.Entry<String, Object> e : q) {
      if (e.getValue() != null) {
        out.put(e.getKey(), new Quantity(String.valueOf(e.getValue())));
      }
    }
    return out;
  }

  static JsonObject object(JsonObject parent, String key) {
    Object v = parent.getValue(key);
    if (v == null) {
      return new JsonObject();
    }
    if (!(v instanceof JsonObject o)) {
      throw new IllegalArgumentException(key + " is not an object");
    }
    return o;
  }
}
