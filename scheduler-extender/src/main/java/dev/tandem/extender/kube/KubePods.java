package dev.tandem.extender.kube;

import dev.tandem.extender.state.AssignedPod;
import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Finds a bind's pod with a GET; a preemption's victims by UID in the pod informer's cache only
 * (preemption must answer quickly, and kube-scheduler's own cache is no fresher).
 */
final class KubePods implements PodSource {

  /** The pod informer's index by UID. */
  static final String BY_UID = "uid";

  private final Vertx vertx;
  private final KubernetesClient client;
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private volatile SharedIndexInformer<Pod> informer;

  KubePods(Vertx vertx, KubernetesClient client) {
    this.vertx = vertx;
    this.client = client;
  }

  void informer(SharedIndexInformer<Pod> value) {
    this.informer = value;
  }

  /** The index to add to the pod informer before it runs. */
  static Map<String, Function<Pod, List<String>>> indexers() {
    return Map.of(BY_UID, p -> List.of(String.valueOf(p.getMetadata().getUid())));
  }

  @Override
  public AssignedPod assigned(String uid) {
    SharedIndexInformer<Pod> i = informer;
    List<Pod> found = i == null ? List.of() : i.getIndexer().byIndex(BY_UID, uid);
    if (found.isEmpty()) {
      return null;
    }
    Pod p = found.get(0);
    Integer priority = p.getSpec() == null ? null : p.getSpec().getPriority();
    return new AssignedPod(
        new PodRef(p.getMetadata().getNamespace(), p.getMetadata().getName(), uid),
        p.getSpec() == null ? null : p.getSpec().getNodeName(),
        priority == null ? 0 : priority);
  }

  /**
   * The pod from the API server: the informer's cache keeps only what {@link #assigned} reads (see
   * {@link SlimStore#pods()}), and a bind's pod is not assigned yet, so the cache would not hold it
   * anyway.
   */
  @Override
  public Future<JsonObject> pod(PodRef ref) {
    return vertx.executeBlocking(
        () -> {
          Pod pod = client.pods().inNamespace(ref.namespace()).withName(ref.name()).get();
          if (pod == null || !ref.uid().equals(pod.getMetadata().getUid())) {
            throw new IllegalStateException(
                "pod " + ref + " does not exist (deleted or recreated)");
          }
          return new JsonObject(serialization.asJson(pod));
        },
        false);
  }
}
