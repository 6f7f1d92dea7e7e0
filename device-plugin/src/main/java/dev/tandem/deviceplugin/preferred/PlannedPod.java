package dev.tandem.deviceplugin.preferred;

import dev.tandem.api.plan.Plan;
import java.util.Map;

/**
 * A pod pending on this node with a plan.
 *
 * @param namespace namespace
 * @param name pod name
 * @param plan its decoded plan
 * @param hcaLimits per container (regular and init), the limit of the plugin's resource, when set
 * @param gpuLimits per container, the limit of the GPU resource ({@code nvidia.com/gpu}), when set
 */
public record PlannedPod(
    String namespace,
    String name,
    Plan plan,
    Map<String, Integer> hcaLimits,
    Map<String, Integer> gpuLimits) {

  public PlannedPod {
    hcaLimits = Map.copyOf(hcaLimits);
    gpuLimits = Map.copyOf(gpuLimits);
  }

  /** Without GPU limits (hint mode reads only the HCA limits). */
  public PlannedPod(String namespace, String name, Plan plan, Map<String, Integer> hcaLimits) {
    this(namespace, name, plan, hcaLimits, Map.of());
  }

  public String key() {
    return namespace + "/" + name;
  }
}
