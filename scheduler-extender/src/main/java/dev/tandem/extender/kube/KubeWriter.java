package dev.tandem.extender.kube;

import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;

/**
 * The bind's API writes: a JSON merge patch of the pod's annotation (on a worker thread), then a
 * POST of a Binding to the pod's {@code binding} subresource, as kube-scheduler's default binder
 * does (with the pod's UID as precondition).
 */
final class KubeWriter implements PodWriter {

  private final Vertx vertx;
  private final KubernetesClient client;

  KubeWriter(Vertx vertx, KubernetesClient client) {
    this.vertx = vertx;
    this.client = client;
  }

  @Override
  public Future<Void> annotate(PodRef pod, String key, String value) {
    String patch =
        new JsonObject()
            .put("metadata", new JsonObject().put("annotations", new JsonObject().put(key, value)))
            .encode();
    return vertx
        .<Void>executeBlocking(
            () -> {
              client
                  .pods()
                  .inNamespace(pod.namespace())
                  .withName(pod.name())
                  .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
              return null;
            },
            false)
        .recover(
            e ->
                Future.<Void>failedFuture(
                    "cannot write annotation " + key + " on " + pod + ": " + e.getMessage()));
  }

  @Override
  public Future<Void> bind(PodRef pod, String node) {
    String body =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "Binding")
            .put(
                "metadata",
                new JsonObject()
                    .put("name", pod.name())
                    .put("namespace", pod.namespace())
                    .put("uid", pod.uid()))
            .put(
                "target",
                new JsonObject().put("apiVersion", "v1").put("kind", "Node").put("name", node))
            .encode();
    URI uri =
        URI.create(
            client.getMasterUrl().toString().replaceAll("/$", "")
                + "/api/v1/namespaces/"
                + pod.namespace()
                + "/pods/"
                + pod.name()
                + "/binding");
    HttpClient http = client.getHttpClient();
    HttpRequest request =
        http.newHttpRequestBuilder().uri(uri).post("application/json", body).build();
    return Future.fromCompletionStage(
            http.sendAsync(request, String.class), vertx.getOrCreateContext())
        .compose(
            r ->
                r.isSuccessful()
                    ? Future.<Void>succeededFuture()
                    : Future.failedFuture(
                        "the API server answered "
                            + r.code()
                            + " to the Binding of "
                            + pod
                            + " to "
                            + node
                            + ": "
                            + abbreviate(r.body())));
  }

  private static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }
}
