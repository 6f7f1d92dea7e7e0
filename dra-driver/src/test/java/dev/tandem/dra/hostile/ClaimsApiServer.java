package dev.tandem.dra.hostile;

import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * fabric8's mock API server with a CRUD store for everything the driver writes (Nodes,
 * ResourceSlices), and ResourceClaims answered as a test sets them: any status, any bytes (not
 * necessarily JSON, nor UTF-8). A claim not set is a 404.
 */
final class ClaimsApiServer {

  private static final String CLAIMS = "/apis/resource.k8s.io/v1/namespaces/";

  private record Answer(int status, byte[] body) {}

  private final Map<String, Answer> claims = new ConcurrentHashMap<>();
  private final MockApiServer api;

  ClaimsApiServer() {
    KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
    Dispatcher dispatcher =
        new Dispatcher() {
          @Override
          public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            if (path.startsWith(CLAIMS) && path.contains("/resourceclaims/")) {
              Answer a = claims.get(URLDecoder.decode(path, StandardCharsets.UTF_8));
              return a == null
                  ? new MockResponse().setResponseCode(404).setBody("{\"kind\":\"Status\"}")
                  : new MockResponse()
                      .setResponseCode(a.status())
                      .setHeader("Content-Type", "application/json")
                      .setBody(a.body());
            }
            return crud.dispatch(request);
          }
        };
    api = MockApiServer.answeredBy(dispatcher);
  }

  KubernetesClient client() {
    return api.client();
  }

  /** What a GET of the claim {@code namespace/name} answers from now on. */
  void answer(String namespace, String name, int status, byte[] body) {
    claims.put(CLAIMS + namespace + "/resourceclaims/" + name, new Answer(status, body));
  }

  /** Forgets every claim, and the requests recorded so far (the mock keeps each one). */
  void clear() throws InterruptedException {
    claims.clear();
    while (api.server().takeRequest(0, TimeUnit.SECONDS) != null) {
      // drained
    }
  }
}
