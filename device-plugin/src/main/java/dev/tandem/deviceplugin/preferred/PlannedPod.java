package dev.tandem.deviceplugin.preferred;

import java.util.Map;

/**
 * A pod pending on this node with a plan.
 *
 * @param namespace namespace
 * @param name pod name
 * @param plan its decoded plan
 * @param hcaLimits per container (regular and init), the limit of the plugin's resource, when set
 */
public record PlannedPod(String namespace, String name, Plan plan, Map<String, Integer> hcaLimits) {

  public PlannedPod {
    hcaLimits = Map.copyOf(hcaLimits);
  }

  public String key() {
    return namespace + "/" + name;
  }
}
