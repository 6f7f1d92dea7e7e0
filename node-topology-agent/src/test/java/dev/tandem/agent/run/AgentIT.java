package dev.tandem.agent.run;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.api.crd.CrdFile;
import dev.tandem.api.crd.NodeTopology;
import dev.tandem.api.crd.TestNodes;
import dev.tandem.fixtures.Topologies;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole agent in run mode, discovering the Dell XE8640 fixture through libhwloc and publishing
 * to the mock API server, with no kubelet socket: topology is published, audit waits, /healthz and
 * /metrics answer.
 */
@EnableKubernetesMockClient(crud = true, https = false)
class AgentIT {

  static KubernetesClient client;

  @TempDir Path dir;

  static final Path XE8640 = Topologies.path("dell-poweredge-xe8640-h100x4.xml");

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  @DisplayName(
      "run mode publishes the XE8640's topology, notes that audit waits for the kubelet, and serves health and metrics")
  void runs() throws Exception {
    CrdFile.install(client);
    TestNodes.create(client, "xe8640-1");
    RunConfig config =
        RunConfig.fromMap(
            Map.of(
                "NODE_NAME",
                "xe8640-1",
                "TANDEM_HWLOC_XML",
                XE8640.toAbsolutePath().normalize().toString(),
                "TANDEM_POD_RESOURCES_SOCKET",
                dir.resolve("kubelet.sock").toString(),
                "TANDEM_PORT",
                "0"));
    KubernetesClient own =
        new KubernetesClientBuilder().withConfig(client.getConfiguration()).build();
    Agent agent = Agent.start(config, own).await(30, TimeUnit.SECONDS);
    try {
      await("NodeTopology with audit note")
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                NodeTopology t = client.resources(NodeTopology.class).withName("xe8640-1").get();
                return t != null
                    && t.getStatus() != null
                    && t.getStatus().notes().stream()
                        .anyMatch(n -> n.contains("waiting for the kubelet"));
              });
      NodeTopology t = client.resources(NodeTopology.class).withName("xe8640-1").get();
      assertEquals(4, t.getSpec().summary().gpus());
      assertTrue(t.getSpec().summary().hcas() > 0, t.getSpec().summary().toString());

      HttpResponse<String> health = get(agent.port(), "/healthz");
      assertEquals(200, health.statusCode());
      assertTrue(health.body().contains("\"status\":\"ok\""), health.body());
      HttpResponse<String> metrics = get(agent.port(), "/metrics");
      assertEquals(200, metrics.statusCode());
      assertTrue(metrics.headers().firstValue("content-type").orElse("").startsWith("text/plain"));
      assertTrue(metrics.body().contains("tandem_podresources_up 0.0"), metrics.body());
      assertTrue(
          metrics.body().contains("tandem_nodetopology_publish_failures 0.0"), metrics.body());
    } finally {
      agent.stop(Duration.ofSeconds(10));
    }
  }
}
