package dev.tandem.deviceplugin.preferred;

import dev.tandem.api.plan.Plan;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A pod pending on this node with a plan.
 *
 * @param namespace namespace
 * @param name pod name
 * @param plan its decoded plan
 * @param hcaLimits per container (regular and init) that names the plugin's resource, its count of
 *     devices (the request; the limit stands in, as for every extended resource)
 * @param gpuLimits per container that names the GPU resource ({@code nvidia.com/gpu}), its count
 * @param order every container's name in the order the kubelet admits them: init containers, then
 *     app containers, each in spec order
 * @param endingInit the ordinary init containers (not sidecars): the kubelet's PodResources never
 *     lists them, and their devices are reused by the containers after them
 */
public record PlannedPod(
    String namespace,
    String name,
    Plan plan,
    Map<String, Integer> hcaLimits,
    Map<String, Integer> gpuLimits,
    List<String> order,
    Set<String> endingInit) {

  public PlannedPod {
    hcaLimits = Map.copyOf(hcaLimits);
    gpuLimits = Map.copyOf(gpuLimits);
    order = List.copyOf(order);
    endingInit = Set.copyOf(endingInit);
  }

  /** App containers only, admitted in name order. */
  public PlannedPod(
      String namespace,
      String name,
      Plan plan,
      Map<String, Integer> hcaLimits,
      Map<String, Integer> gpuLimits) {
    this(
        namespace,
        name,
        plan,
        hcaLimits,
        gpuLimits,
        Stream.concat(hcaLimits.keySet().stream(), gpuLimits.keySet().stream())
            .distinct()
            .sorted()
            .toList(),
        Set.of());
  }

  /** Without GPU limits (hint mode reads only the HCA limits). */
  public PlannedPod(String namespace, String name, Plan plan, Map<String, Integer> hcaLimits) {
    this(namespace, name, plan, hcaLimits, Map.of());
  }

  public String key() {
    return namespace + "/" + name;
  }
}
