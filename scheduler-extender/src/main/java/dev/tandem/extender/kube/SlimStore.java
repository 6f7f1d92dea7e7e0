package dev.tandem.extender.kube;

import dev.tandem.api.crd.NodeTopology;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * An informer's store that keeps of each object only what the extender reads back from the cache:
 * its key, {@code metadata.resourceVersion}, and for a pod its UID, node and priority. The handlers
 * turn every event's full object into the cluster state, so a second full copy of every
 * NodeTopology, Node and Pod would only cost memory; a fabric8 object is made again when the
 * informer asks for one (an update's old object, a relist, a lookup by UID). The informer compares
 * resource versions to tell a change from a resync, so that is kept; a resync hands the handlers
 * objects with an unchanged version, which they ignore.
 *
 * @param <T> the resource type
 */
final class SlimStore<T extends HasMetadata> implements ItemStore<T> {

  /**
   * What is kept of one object.
   *
   * @param uid a pod's UID (its index for preemption); null for the other kinds
   * @param node a pod's {@code spec.nodeName}; null for the other kinds
   * @param priority a pod's {@code spec.priority}; null for the other kinds
   */
  record Kept(
      String namespace, String name, String version, String uid, String node, Integer priority) {}

  private final Map<String, Kept> items = new ConcurrentHashMap<>();
  private final Function<HasMetadata, Kept> keep;
  private final Supplier<T> empty;

  private SlimStore(Function<HasMetadata, Kept> keep, Supplier<T> empty) {
    this.keep = keep;
    this.empty = empty;
  }

  /** NodeTopologies: the handlers read every event's object; the cache answers nothing else. */
  static SlimStore<NodeTopology> topologies() {
    return new SlimStore<>(SlimStore::named, NodeTopology::new);
  }

  /** Nodes: as for NodeTopologies. */
  static SlimStore<Node> nodes() {
    return new SlimStore<>(SlimStore::named, Node::new);
  }

  /**
   * Pods: {@link KubePods} finds a preemption's victims by UID in the cache, and reads their node
   * and priority.
   */
  static SlimStore<Pod> pods() {
    return new SlimStore<>(
        p -> {
          Pod pod = (Pod) p;
          ObjectMeta m = pod.getMetadata();
          PodSpec spec = pod.getSpec();
          return new Kept(
              m.getNamespace(),
              m.getName(),
              m.getResourceVersion(),
              m.getUid(),
              spec == null ? null : spec.getNodeName(),
              spec == null ? null : spec.getPriority());
        },
        Pod::new);
  }

  private static Kept named(HasMetadata obj) {
    ObjectMeta m = obj.getMetadata();
    return new Kept(m.getNamespace(), m.getName(), m.getResourceVersion(), null, null, null);
  }

  private T restore(Kept kept) {
    if (kept == null) {
      return null;
    }
    T out = empty.get();
    ObjectMeta meta = new ObjectMeta();
    meta.setNamespace(kept.namespace());
    meta.setName(kept.name());
    meta.setResourceVersion(kept.version());
    meta.setUid(kept.uid());
    out.setMetadata(meta);
    if (out instanceof Pod pod) {
      PodSpec spec = new PodSpec();
      spec.setNodeName(kept.node());
      spec.setPriority(kept.priority());
      pod.setSpec(spec);
    }
    return out;
  }

  @Override
  public String getKey(T obj) {
    return Cache.metaNamespaceKeyFunc(obj);
  }

  @Override
  public T put(String key, T obj) {
    return restore(items.put(key, keep.apply(obj)));
  }

  @Override
  public T remove(String key) {
    return restore(items.remove(key));
  }

  @Override
  public Stream<String> keySet() {
    return items.keySet().stream();
  }

  @Override
  public Stream<T> values() {
    return items.values().stream().map(this::restore);
  }

  @Override
  public int size() {
    return items.size();
  }

  @Override
  public T get(String key) {
    return restore(items.get(key));
  }

  @Override
  public boolean isFullState() {
    return false;
  }
}
