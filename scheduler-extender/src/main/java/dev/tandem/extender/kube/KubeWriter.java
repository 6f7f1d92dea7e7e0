package dev.tandem.extender.kube;

import dev.tandem.extender.state.PodRef;
import dev.tandem.extender.state.PodWriter;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.Map;

/**
 * The bind's API write: a POST of a Binding to the pod's {@code binding} subresource, as
 * kube-scheduler's default binder does (with the pod's UID as precondition), carrying the plan
 * annotation, which the API server merges onto the pod as it sets the node.
 */
final class KubeWriter implements PodWriter {

  private final Vertx vertx;
  private final KubernetesClient client;

  KubeWriter(Vertx vertx, KubernetesClient client) {
    this.vertx = vertx;
    this.client = client;
  }

  @Override
  public Future<Void> bind(PodRef pod, String node, Map<String, String> annotations) {
    HttpClient http = client.getHttpClient();
    HttpRequest request = binding(http, pod, node, annotations);
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

  @Override
  public void rehearse(PodRef pod, String node, Map<String, String> annotations) {
    binding(client.getHttpClient(), pod, node, annotations);
  }

  /** The POST of the Binding: the pod's name, namespace and UID, the node, the annotations. */
  private HttpRequest binding(
      HttpClient http, PodRef pod, String node, Map<String, String> annotations) {
    JsonObject metadata =
        new JsonObject()
            .put("name", pod.name())
            .put("namespace", pod.namespace())
            .put("uid", pod.uid());
    if (!annotations.isEmpty()) {
      metadata.put("annotations", new JsonObject(Map.copyOf(annotations)));
    }
    String body =
        new JsonObject()
            .put("apiVersion", "v1")
            .put("kind", "Binding")
            .put("metadata", metadata)
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
    return http.newHttpRequestBuilder().uri(uri).post("application/json", body).build();
  }

  private static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    return s.length() > 300 ? s.substring(0, 300) + "…" : s;
  }
}
