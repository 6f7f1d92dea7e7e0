package dev.tandem.agent.audit;

import dev.tandem.api.dra.DraAttributes;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;

/** The PCI addresses the DRA drivers publish for this node's devices; blocking. */
@FunctionalInterface
public interface NodeSlices {

  /**
   * The {@code resource.kubernetes.io/pciBusID} of every device in the node's ResourceSlices that
   * has one, by {@link ClaimDeviceMapping#key}.
   */
  Map<String, String> pciBusIds();

  /** No driver publishes anything: DRA devices of other drivers than Tandem's stand for none. */
  NodeSlices NONE = Map::of;

  /**
   * The node's ResourceSlices ({@code spec.nodeName} = {@code node}, selected by the API server),
   * read each time they are asked for.
   */
  static NodeSlices fieldSelector(KubernetesClient client, String node) {
    return () -> {
      Map<String, String> out = new HashMap<>();
      for (ResourceSlice s :
          client
              .dynamicResourceAllocation()
              .v1()
              .resourcesSlices()
              .withField("spec.nodeName", node)
              .list()
              .getItems()) {
        if (s.getSpec() != null && node.equals(s.getSpec().getNodeName())) {
          add(s, out);
        }
      }
      return out;
    };
  }

  private static void add(ResourceSlice s, Map<String, String> out) {
    String driver = s.getSpec().getDriver();
    String pool = s.getSpec().getPool() == null ? "" : s.getSpec().getPool().getName();
    if (s.getSpec().getDevices() == null) {
      return;
    }
    for (Device d : s.getSpec().getDevices()) {
      DeviceAttribute a =
          d.getAttributes() == null ? null : d.getAttributes().get(DraAttributes.PCI_BUS_ID);
      if (a != null && a.getString() != null) {
        out.put(ClaimDeviceMapping.key(driver, pool, d.getName()), a.getString());
      }
    }
  }
}
