package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.Listeners;
import dev.tandem.extender.certs.CertificateFiles;
import dev.tandem.extender.certs.CertificatesCommand;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import io.fabric8.kubernetes.api.model.Container;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real extender, configured from its Deployment's args (on a free port, demo cluster), answers
 * every verb of the kube-scheduler configuration at its urlPrefix, and the probe paths.
 */
@ExtendWith(VertxExtension.class)
class ExtenderRoutesIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  /**
   * The one demo node: a real topology bundled with the demo (2 P100s and a ConnectX-5 under one
   * switch).
   */
  private static final String NODE = "penguin-relion-x1904gt-p100x2";

  private static int port;
  private static int inspectionPort;
  private static Http verbs;

  @BeforeAll
  static void start(Vertx vertx, @TempDir Path dir) throws Exception {
    try (InputStream in = ExtenderRoutesIT.class.getResourceAsStream("/demo/" + NODE + ".json")) {
      Files.copy(
          Objects.requireNonNull(in, "demo topology " + NODE + " not on the classpath"),
          dir.resolve(NODE + ".json"));
    }
    // the Secrets' files as the certificate Job makes them (its subcommand, writing files)
    Path certificates = dir.resolve("certificates");
    assertEquals(
        0,
        CertificatesCommand.run(
            List.of("--out", certificates.toString(), "--extra-names", "localhost"),
            Map.of(),
            new PrintStream(OutputStream.nullOutputStream())));
    Path scheduler = certificates.resolve(CertificateFiles.SCHEDULER);
    verbs =
        new Http(
            0,
            scheduler.resolve("ca.crt"),
            scheduler.resolve("tls.crt"),
            scheduler.resolve("tls.key"));
    ExtenderConfig config =
        ExtenderDeployment.config(certificates.resolve(CertificateFiles.EXTENDER)).onFreePorts();
    Listeners server =
        Extender.start(vertx, config, DemoCluster.fromDirectory(dir))
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    port = server.verbsPort();
    verbs = verbs.onPort(port);
    inspectionPort = server.inspectionPort();
  }

  @Test
  @DisplayName(
      "filter, prioritize and bind at the configured urlPrefix answer 200 with the extender JSON shapes")
  void verbsAnswerAtUrlPrefix() throws Exception {
    JsonNode entry =
        ManifestFiles.single(SchedulerConfigurationTest.SECOND).node().path("extenders").get(0);
    String path = URI.create(entry.path("urlPrefix").asText()).getPath();
    String pod =
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":\"u-1\"},\"spec\":{\"containers\":"
            + "[{\"name\":\"c\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\",\"rdma/hca\":\"1\"}}}]}}";
    String args = "{\"Pod\":" + pod + ",\"Nodes\":null,\"NodeNames\":[\"no-such-node\"]}";

    JsonNode filter = post(path + "/" + entry.path("filterVerb").asText(), args);
    assertTrue(
        filter.has("NodeNames")
            || filter.has("FailedNodes")
            || filter.has("FailedAndUnresolvableNodes"),
        "filter answer " + filter);
    JsonNode prioritize = post(path + "/" + entry.path("prioritizeVerb").asText(), args);
    assertTrue(prioritize.isArray(), "prioritize answers a bare array: " + prioritize);
    JsonNode bind =
        post(
            path + "/" + entry.path("bindVerb").asText(),
            "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"u-1\",\"Node\":\"no-such-node\"}");
    assertTrue(bind.has("Error"), "bind answer " + bind);
    JsonNode preempt =
        post(
            path + "/" + entry.path("preemptVerb").asText(),
            "{\"Pod\":" + pod + ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{}}");
    assertTrue(preempt.path("NodeNameToMetaVictims").isObject(), "preempt answer " + preempt);
  }

  @Test
  @DisplayName("the Deployment's liveness and readiness paths exist on the inspection port")
  void probePathsExist() throws Exception {
    Container c = ExtenderDeployment.container();
    for (String path :
        new String[] {
          c.getLivenessProbe().getHttpGet().getPath(), c.getReadinessProbe().getHttpGet().getPath()
        }) {
      HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + inspectionPort + path))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode(), path + " answered " + r.body());
    }
  }

  @Test
  @DisplayName(
      "every extender URL the operator docs tell you to open answers 200 on the real extender")
  void docUrlsAnswer() throws Exception {
    Pattern url =
        Pattern.compile(
            "(?:http://(?:localhost|10\\.96\\.0\\.88):8889|`GET )(/[A-Za-z0-9_./<>-]*)");
    Set<String> paths = new TreeSet<>();
    for (String doc : List.of("docs/install.md", "docs/operations.md", "docs/troubleshooting.md")) {
      paths.addAll(DocText.all(DocText.read(doc), url));
    }
    assertTrue(paths.size() >= 4, "URLs found in the docs: " + paths);
    for (String path : paths) {
      String concrete = path.replace("gpu-node-1", NODE).replace("<node>", NODE);
      HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + inspectionPort + concrete))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(
          200,
          r.statusCode(),
          "GET " + concrete + " (from the docs' " + path + ") answered " + r.body());
    }
  }

  private static JsonNode post(String path, String body) throws Exception {
    HttpResponse<String> r = verbs.post(path, body);
    assertEquals(200, r.statusCode(), "POST " + path + " answered " + r.body());
    return JSON.readTree(r.body());
  }
}
