package dev.tandem.dra.publish;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who else publishes this node's GPUs, read from the API server: a device plugin ({@code
 * nvidia.com/gpu} above zero in the Node's capacity or allocatable: NVIDIA's, or Tandem's own in
 * joint mode) or NVIDIA's GPU DRA driver (ResourceSlices of driver {@code gpu.nvidia.com} for the
 * node, listed with the field selectors {@code spec.nodeName} and {@code spec.driver} the API
 * server supports for ResourceSlices). Joint mode must be the only publisher of the node's GPUs.
 * Blocking: run on a worker thread. Needs {@code get} on nodes and {@code list} on resourceslices.
 */
public final class GpuPublishers {

  /** The extended resource GPU device plugins register. */
  public static final String DEVICE_PLUGIN_RESOURCE = "nvidia.com/gpu";

  /** The driver name of NVIDIA's GPU DRA driver. */
  public static final String NVIDIA_DRA_DRIVER = "gpu.nvidia.com";

  private final KubernetesClient client;

  public GpuPublishers(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Each other publisher of the node's GPUs, described for a person; empty when there is none.
   *
   * @throws IllegalStateException when the Node is not in the API server
   */
  public List<String> others(String nodeName) {
    Node node =
        DriverNode.read(client, nodeName, "so who else publishes its GPUs cannot be checked");
    List<String> out = new ArrayList<>();
    NodeStatus status = node.getStatus();
    if (status != null && (positive(status.getCapacity()) || positive(status.getAllocatable()))) {
      out.add(
          "a device plugin ("
              + DEVICE_PLUGIN_RESOURCE
              + " above zero in the Node's capacity or allocatable: NVIDIA's device plugin, or"
              + " Tandem's device plugin with GPUs)");
    }
    List<String> slices = nvidiaSlices(nodeName);
    if (!slices.isEmpty()) {
      out.add(
          "NVIDIA's GPU DRA driver (ResourceSlices of driver "
              + NVIDIA_DRA_DRIVER
              + ": "
              + String.join(", ", slices)
              + ")");
    }
    return out;
  }

  private List<String> nvidiaSlices(String nodeName) {
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourcesSlices()
        .withField("spec.nodeName", nodeName)
        .withField("spec.driver", NVIDIA_DRA_DRIVER)
        .list()
        .getItems()
        .stream()
        .filter(s -> isOf(s, nodeName))
        .map(s -> s.getMetadata().getName())
        .toList();
  }

  /** Checked again here: the selector is the API server's, this is the answer's. */
  private static boolean isOf(ResourceSlice s, String nodeName) {
    return s.getSpec() != null
        && nodeName.equals(s.getSpec().getNodeName())
        && NVIDIA_DRA_DRIVER.equals(s.getSpec().getDriver());
  }

  private static boolean positive(Map<String, Quantity> resources) {
    Quantity q = resources == null ? null : resources.get(DEVICE_PLUGIN_RESOURCE);
    return q != null && q.getNumericalAmount().signum() > 0;
  }
}
