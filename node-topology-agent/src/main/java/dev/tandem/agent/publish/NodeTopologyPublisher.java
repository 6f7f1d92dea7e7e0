package dev.tandem.agent.publish;

import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.NodeTopologySpec;
import dev.tandem.api.crd.NodeTopologyStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Writes this node's NodeTopology object, and only that one: it is named after the node and owned
 * by the Node (so it is garbage-collected with it).
 *
 * <p>Writes are conflict-safe: a create, or a PUT carrying the resourceVersion just read (the API
 * server answers 409 if someone wrote in between; the write is then re-read and retried once), for
 * the object and then for its {@code status} subresource. Labels, annotations and finalizers others
 * put on the object are kept. Nothing is written when nothing changed. Calls block: run them on a
 * worker thread.
 */
public final class NodeTopologyPublisher {

  public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
  public static final String MANAGED_BY = "tandem-node-topology-agent";

  private final KubernetesClient client;
  private final String nodeName;

  public NodeTopologyPublisher(KubernetesClient client, String nodeName) {
    this.client = Objects.requireNonNull(client, "client");
    this.nodeName = Objects.requireNonNull(nodeName, "nodeName");
  }

  public String nodeName() {
    return nodeName;
  }

  /** What a publish did. */
  public enum Outcome {
    CREATED,
    UPDATED,
    UNCHANGED
  }

  /**
   * Creates or updates the object so it holds {@code spec} and {@code status}.
   *
   * @throws NodeNotFoundException when the Node object does not exist
   * @throws KubernetesClientException on API errors (the caller backs off and retries)
   */
  public Outcome publish(NodeTopologySpec spec, NodeTopologyStatus status) {
    try {
      return write(spec, status);
    } catch (KubernetesClientException e) {
      if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
        throw e;
      }
      return write(spec, status);
    }
  }

  /** The object as the API server has it now, if any. */
  public Optional<NodeTopology> current() {
    return Optional.ofNullable(client.resources(NodeTopology.class).withName(nodeName).get());
  }

  private Outcome write(NodeTopologySpec spec, NodeTopologyStatus status) {
    OwnerReference owner = owner();
    NodeTopology current = current().orElse(null);
    if (current == null) {
      NodeTopology created = client.resource(fresh(spec, owner)).create();
      writeStatus(created, status);
      return Outcome.CREATED;
    }
    boolean changed = false;
    if (!spec.equals(current.getSpec()) || !ownedBy(current, owner)) {
      current = client.resource(merged(current, spec, owner)).update();
      changed = true;
    }
    return writeStatus(current, status) || changed ? Outcome.UPDATED : Outcome.UNCHANGED;
  }

  private boolean writeStatus(NodeTopology current, NodeTopologyStatus status) {
    if (Objects.equals(current.getStatus(), status)) {
      return false;
    }
    current.setStatus(status);
    client.resource(current).updateStatus();
    return true;
  }

  private OwnerReference owner() {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      throw new NodeNotFoundException(nodeName);
    }
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(node.getMetadata().getName())
        .withUid(node.getMetadata().getUid())
        .build();
  }

  private NodeTopology fresh(NodeTopologySpec spec, OwnerReference owner) {
    NodeTopology t = new NodeTopology();
    ObjectMeta meta = new ObjectMeta();
    meta.setName(nodeName);
    meta.setLabels(Map.of(MANAGED_BY_LABEL, MANAGED_BY));
    meta.setOwnerReferences(List.of(owner));
    t.setMetadata(meta);
    t.setSpec(spec);
    return t;
  }

  private static NodeTopology merged(
      NodeTopology current, NodeTopologySpec spec, OwnerReference owner) {
    ObjectMeta meta = current.getMetadata();
    Map<String, String> labels =
        new HashMap<>(meta.getLabels() == null ? Map.of() : meta.getLabels());
    labels.put(MANAGED_BY_LABEL, MANAGED_BY);
    meta.setLabels(labels);
    meta.setOwnerReferences(List.of(owner));
    current.setSpec(spec);
    return current;
  }

  private static boolean ownedBy(NodeTopology t, OwnerReference owner) {
    List<OwnerReference> refs = t.getMetadata().getOwnerReferences();
    return refs != null
        && refs.size() == 1
        && owner.getUid().equals(refs.get(0).getUid())
        && "Node".equals(refs.get(0).getKind());
  }
}
