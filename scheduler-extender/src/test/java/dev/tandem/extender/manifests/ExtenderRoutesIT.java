package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.extender.http.ExtenderServer;
import io.fabric8.kubernetes.api.model.Container;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The real extender, configured from its Deployment's args (on a free port, demo cluster), answers
 * every verb of the kube-scheduler configuration at its urlPrefix, and the probe paths.
 */
class ExtenderRoutesIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static Vertx vertx;
  private static int port;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    ExtenderConfig config = ExtenderDeployment.config().withPort(0);
    HttpServer server = ExtenderServer.start(vertx, config, DemoCluster.of(java.util.List.of()))
        .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    port = server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  @DisplayName("filter, prioritize and bind at the configured urlPrefix answer 200 with the extender JSON shapes")
  void verbsAnswerAtUrlPrefix() throws Exception {
    JsonNode entry = ManifestFiles.single(SchedulerConfigurationTest.SECOND).node().path("extenders").get(0);
    String path = URI.create(entry.path("urlPrefix").asText()).getPath();
    String pod = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u-1\"},\"spec\":{\"containers\":"
        + "[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\",\"rdma/hca\":\"1\"}}}]}}";
    String args = "{\"Pod\":" + pod + ",\"Nodes\":null,\"NodeNames\":[\"no-such-node\"]}";

    JsonNode filter = post(path + "/" + entry.path("filterVerb").asText(), args);
    assertTrue(filter.has("NodeNames") || filter.has("FailedNodes") || filter.has("FailedAndUnresolvableNodes"),
        "filter answer " + filter);
    JsonNode prioritize = post(path + "/" + entry.path("prioritizeVerb").asText(), args);
    assertTrue(prioritize.isArray(), "prioritize answers a bare array: " + prioritize);
    JsonNode bind = post(path + "/" + entry.path("bindVerb").asText(),
        "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"u-1\",\"Node\":\"no-such-node\"}");
    assertTrue(bind.has("Error"), "bind answer " + bind);
  }

  @Test
  @DisplayName("the Deployment's liveness and readiness paths exist on the extender's port")
  void probePathsExist() throws Exception {
    Container c = ExtenderDeployment.container();
    for (String path : new String[] {c.getLivenessProbe().getHttpGet().getPath(), c.getReadinessProbe().getHttpGet().getPath()}) {
      HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path + " answered " + r.body());
    }
  }

  private static JsonNode post(String path, String body) throws Exception {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), "POST " + path + " answered " + r.body());
    return JSON.readTree(r.body());
  }
}
