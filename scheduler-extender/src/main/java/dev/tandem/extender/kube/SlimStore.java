package dev.tandem.extender.kube;

import dev.tandem.api.crd.NodeTopology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of each object only what the extender reads back from the cache
 * (always its key and {@code metadata.resourceVersion}): the handlers turn every event's full
 * object into the cluster state, so a second full copy of every NodeTopology, Node and Pod would
 * only cost memory. The informer compares resource versions to tell a change from a resync, so the
 * slim object keeps it; a resync hands the handlers slim objects with an unchanged version, which
 * they ignore.
 *
 * @param <T> the resource type
 */
final class SlimStore<T extends HasMetadata> implements ItemStore<T> {

  private final ConcurrentHashMap<String, T> items = new ConcurrentHashMap<>();
  private final UnaryOperator<T> slim;

  /**
   * @param slim a new object holding what the cache must answer: the fields of the key, the
   *     resource version, and whatever the informer's indexers and readers use
   */
  SlimStore(UnaryOperator<T> slim) {
    this.slim = slim;
  }

  /** NodeTopologies: the handlers read every event's object; the cache answers nothing else. */
  static SlimStore<NodeTopology> topologies() {
    return new SlimStore<>(
        nt -> {
          NodeTopology out = new NodeTopology();
          out.setMetadata(named(nt.getMetadata()));
          return out;
        });
  }

  /** Nodes: as for NodeTopologies. */
  static SlimStore<Node> nodes() {
    return new SlimStore<>(
        node -> {
          Node out = new Node();
          out.setMetadata(named(node.getMetadata()));
          return out;
        });
  }

  /**
   * Pods: {@link KubePods} finds a preemption's victims by UID in the cache, and reads their node
   * and priority.
   */
  static SlimStore<Pod> pods() {
    return new SlimStore<>(
        pod -> {
          ObjectMeta meta = named(pod.getMetadata());
          meta.setUid(pod.getMetadata().getUid());
          PodSpec spec = new PodSpec();
          if (pod.getSpec() != null) {
            spec.setNodeName(pod.getSpec().getNodeName());
            spec.setPriority(pod.getSpec().getPriority());
          }
          Pod out = new Pod();
          out.setMetadata(meta);
          out.setSpec(spec);
          return out;
        });
  }

  private static ObjectMeta named(ObjectMeta full) {
    ObjectMeta meta = new ObjectMeta();
    meta.setNamespace(full.getNamespace());
    meta.setName(full.getName());
    meta.setResourceVersion(full.getResourceVersion());
    return meta;
  }

  @Override
  public String getKey(T obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public T put(String key, T obj) {
    return items.put(key, slim.apply(obj));
  }

  @Override
  public T remove(String key) {
    return items.remove(key);
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return items.values().stream();
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return items.get(key);
  }

  @Override
  public boolean isFullState() {
    return false;
  }
}
