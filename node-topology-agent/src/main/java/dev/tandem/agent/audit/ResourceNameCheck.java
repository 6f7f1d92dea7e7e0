package dev.tandem.agent.audit;

import dev.tandem.api.ResourceNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the kubelet offers the resources under the names this agent audits and counts. A device
 * plugin that registers another name (a k8s-rdma-sriov-dev-plugin file in {@code sriov} mode maps
 * to {@code rdma/vhca}; NVIDIA's plugin with its time-sliced GPUs renamed to {@code
 * nvidia.com/gpu.shared}) leaves the agent, and the extender that reads its counts, looking at a
 * resource no device is in. Seen from the kubelet's {@code GetAllocatableResources}: the configured
 * name absent while another name of its family ({@code rdma/…}, {@code nvidia.com/…}, or the
 * configured name's domain) is present.
 */
final class ResourceNameCheck {

  /**
   * @param notRenamed names of the family that are never the resource renamed: NVIDIA's MIG profile
   *     resources ({@code mig-strategy mixed}) sit beside {@code nvidia.com/gpu}, and Tandem leaves
   *     them to kube-scheduler; null when the family has none
   */
  private record Family(
      String kind, String conventional, String notRenamed, String flag, String env, String value) {}

  private static final Family HCA =
      new Family(
          "HCA",
          "rdma/",
          null,
          "--hca-resource-name",
          "TANDEM_HCA_RESOURCE_NAME",
          "resourceNames.hca");
  private static final Family GPU =
      new Family(
          "GPU",
          "nvidia.com/",
          "nvidia.com/mig-",
          "--gpu-resource-name",
          "TANDEM_GPU_RESOURCE_NAME",
          "resourceNames.gpu");

  private ResourceNameCheck() {}

  /** One sentence per resource offered under another name than configured; empty when none is. */
  static List<String> mismatches(Collection<String> offered, ResourceNames names) {
    List<String> out = new ArrayList<>();
    mismatch(offered, names.hca(), HCA, names).ifPresent(out::add);
    mismatch(offered, names.gpu(), GPU, names).ifPresent(out::add);
    return out;
  }

  private static Optional<String> mismatch(
      Collection<String> offered, String configured, Family f, ResourceNames names) {
    if (offered.contains(configured)) {
      return Optional.empty();
    }
    String domain = configured.substring(0, configured.indexOf('/') + 1);
    Set<String> others = new TreeSet<>();
    for (String r : offered) {
      boolean notRenamed = f.notRenamed() != null && r.startsWith(f.notRenamed());
      if (!names.governs(r)
          && !notRenamed
          && (r.startsWith(domain) || r.startsWith(f.conventional()))) {
        others.add(r);
      }
    }
    if (others.isEmpty()) {
      return Optional.empty();
    }
    String first = others.iterator().next();
    return Optional.of(
        "the kubelet offers "
            + String.join(", ", others)
            + " but no "
            + configured
            + ", the "
            + f.kind()
            + " resource this agent audits and counts (the extender reads the same name): a device"
            + " plugin registers another name. If "
            + first
            + " is the "
            + f.kind()
            + " resource, set "
            + f.flag()
            + " "
            + first
            + " ("
            + f.env()
            + "; chart value "
            + f.value()
            + ") on the agent and the extender alike");
  }
}
