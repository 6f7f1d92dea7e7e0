package dev.tandem.extender.kube;

import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/** Finds a bind's pod in the pod informer's cache, else with a GET. */
final class KubePods implements PodSource {

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

  @Override
  public Future<JsonObject> pod(PodRef ref) {
    SharedIndexInformer<Pod> i = informer;
    Pod cached = i == null ? null : i.getIndexer().getByKey(ref.namespace() + "/" + ref.name());
    if (cached != null && ref.uid().equals(cached.getMetadata().getUid())) {
      return Future.succeededFuture(new JsonObject(serialization.asJson(cached)));
    }
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
