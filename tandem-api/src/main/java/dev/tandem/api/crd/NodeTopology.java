package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * One node's PCIe/NUMA tree with its GPUs and HCAs ({@code spec}) and what the kubelet allocated on
 * it ({@code status}). Cluster-scoped, named after the node, owned by the Node, written only by
 * that node's agent. The schema is {@code manifests/crd/nodetopologies.tandem.dev.yaml}.
 *
 * <p>It is deliberately not {@link Namespaced}: fabric8 reads the scope from that marker.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@Group(NodeTopology.GROUP)
@Version(NodeTopology.VERSION)
@Kind("NodeTopology")
@Plural("nodetopologies")
@Singular("nodetopology")
@ShortNames("ntopo")
public class NodeTopology extends CustomResource<NodeTopologySpec, NodeTopologyStatus> {

  public static final String GROUP = "tandem.dev";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  public static final String CRD_NAME = "nodetopologies." + GROUP;

  @Override
  protected NodeTopologySpec initSpec() {
    return null;
  }

  @Override
  protected NodeTopologyStatus initStatus() {
    return null;
  }
}
