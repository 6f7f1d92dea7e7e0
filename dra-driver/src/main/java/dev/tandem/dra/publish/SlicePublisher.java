package dev.tandem.dra.publish;

import dev.tandem.dra.slices.NodePool;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the API server's ResourceSlices of one node and driver equal to the node's pool: creates,
 * updates and deletes them, each owned by the Node (deleted with it). Idempotent: each slice
 * carries the {@linkplain SliceContent#fingerprint fingerprint} of what was written into it, and
 * when the slices already say what the pool says, nothing is written, so a restarted driver causes
 * no churn. A field the API server drops (its feature gate off: {@link DroppedField}) is no change:
 * it is logged once, as a warning, and named by {@link #dropped()}. When anything changed, every
 * slice of the pool is written with the next pool generation (consumers use only the highest
 * generation, and wait for the slice count to be complete). Blocking calls: run on a worker thread.
 */
public final class SlicePublisher {

  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  /** The annotation holding the fingerprint of what the driver wrote into a slice. */
  static final String FINGERPRINT = "tandem.dev/slice-content";

  private final KubernetesClient client;
  private final Set<DroppedField> dropped = ConcurrentHashMap.newKeySet();

  public SlicePublisher(KubernetesClient client) {
    this.client = client;
  }

  /**
   * What one publication did.
   *
   * @param generation the pool generation the slices carry now
   * @param created slices created
   * @param updated slices rewritten
   * @param deleted slices removed (no longer part of the pool)
   */
  public record Outcome(long generation, int created, int updated, int deleted) {

    /** Whether nothing was written. */
    public boolean unchanged() {
      return created == 0 && updated == 0 && deleted == 0;
    }
  }

  /**
   * Publishes the pool.
   *
   * @throws IllegalStateException when the Node is not in the API server
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when a write fails (a conflict
   *     with another writer: publish again)
   */
  public Outcome publish(NodePool pool) {
    Map<String, ResourceSlice> held = held(pool);
    int count = pool.slices().size();
    long generation =
        held.values().stream()
            .mapToLong(s -> s.getSpec().getPool().getGeneration())
            .max()
            .orElse(0);
    if (held.size() == count && sameAsHeld(pool, held, generation)) {
      LOG.debug(
          "ResourceSlices of node {} unchanged at generation {}", pool.nodeName(), generation);
      return new Outcome(generation, 0, 0, 0);
    }
    long next = generation + 1;
    OwnerReference owner = owner(pool.nodeName());
    int created = 0;
    int updated = 0;
    for (int i = 0; i < count; i++) {
      ResourceSlice old = held.remove(pool.sliceName(i));
      ResourceSlice slice =
          new ResourceSliceBuilder(SliceContent.slice(pool, i, next))
              .editMetadata()
              .withOwnerReferences(owner)
              .withResourceVersion(old == null ? null : old.getMetadata().getResourceVersion())
              .endMetadata()
              .build();
      ResourceSliceSpec spec = slice.getSpec();
      ResourceSlice kept;
      if (old == null) {
        kept = slices().resource(slice).create();
        created++;
      } else {
        kept = slices().resource(slice).update();
        updated++;
      }
      noteDropped(kept, spec);
    }
    List<ResourceSlice> stale = new ArrayList<>(held.values());
    Collections.reverse(stale);
    for (ResourceSlice s : stale) {
      slices().resource(s).delete();
    }
    LOG.info(
        "published {} device(s) of node {} in {} ResourceSlice(s), pool generation {}",
        pool.devices().size(),
        pool.nodeName(),
        count,
        next);
    return new Outcome(next, created, updated, held.size());
  }

  /** The fields the API server was seen dropping from this driver's slices, since it started. */
  public Set<DroppedField> dropped() {
    Set<DroppedField> out = EnumSet.noneOf(DroppedField.class);
    out.addAll(dropped);
    return out;
  }

  private boolean sameAsHeld(NodePool pool, Map<String, ResourceSlice> held, long generation) {
    for (int i = 0; i < pool.slices().size(); i++) {
      ResourceSlice s = held.get(pool.sliceName(i));
      if (s == null
          || !Objects.equals(s.getSpec().getPool().getGeneration(), generation)
          || !sameAsWritten(s, SliceContent.spec(pool, i, generation))) {
        return false;
      }
    }
    for (int i = 0; i < pool.slices().size(); i++) {
      noteDropped(held.get(pool.sliceName(i)), SliceContent.spec(pool, i, generation));
    }
    return true;
  }

  /**
   * Whether slice {@code s} holds {@code wanted}: its fingerprint says the driver wrote {@code
   * wanted} into it, and it holds all of that but the fields the API server dropped. A slice
   * without fingerprint (written by a driver before fingerprints) must hold all of it.
   */
  private static boolean sameAsWritten(ResourceSlice s, ResourceSliceSpec wanted) {
    Map<String, String> annotations = s.getMetadata().getAnnotations();
    String written = annotations == null ? null : annotations.get(FINGERPRINT);
    if (written == null) {
      return SliceContent.same(s.getSpec(), wanted, Set.of());
    }
    return written.equals(SliceContent.fingerprint(wanted))
        && SliceContent.same(s.getSpec(), wanted, SliceContent.dropped(s.getSpec(), wanted));
  }

  /** Warns, once per field and process, of a field the API server did not keep of a write. */
  private void noteDropped(ResourceSlice kept, ResourceSliceSpec written) {
    for (DroppedField f : SliceContent.dropped(kept.getSpec(), written)) {
      if (dropped.add(f)) {
        LOG.warn(
            "node {}: ResourceSlice {} lacks what the driver wrote into it: {}",
            written.getNodeName(),
            kept.getMetadata().getName(),
            f.consequence());
      }
    }
  }

  /**
   * The slices of this pool the API server holds, by name. Slices are named {@code
   * <node>-<driver>-<index>} and written from index 0 up; stale ones are deleted from the highest
   * index down, so those held are found by asking for each name in turn, without listing every
   * node's slices. Ordered by index.
   */
  private Map<String, ResourceSlice> held(NodePool pool) {
    Map<String, ResourceSlice> out = new LinkedHashMap<>();
    for (int i = 0; ; i++) {
      ResourceSlice s = slices().withName(pool.sliceName(i)).get();
      if (s == null) {
        if (i >= pool.slices().size()) {
          return out;
        }
        continue;
      }
      ResourceSliceSpec spec = s.getSpec();
      if (spec != null
          && pool.nodeName().equals(spec.getNodeName())
          && pool.driver().equals(spec.getDriver())
          && spec.getPool() != null) {
        out.put(s.getMetadata().getName(), s);
      }
    }
  }

  private OwnerReference owner(String nodeName) {
    Node node = DriverNode.read(client, nodeName, "so its ResourceSlices cannot be owned by it");
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(nodeName)
        .withUid(node.getMetadata().getUid())
        .withController(true)
        .build();
  }

  private NonNamespaceOperation<ResourceSlice, ResourceSliceList, Resource<ResourceSlice>>
      slices() {
    return client.dynamicResourceAllocation().v1().resourcesSlices();
  }
}
