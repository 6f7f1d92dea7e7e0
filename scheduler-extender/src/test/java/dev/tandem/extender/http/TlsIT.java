package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Http;
import dev.tandem.extender.TestMachines;
import dev.tandem.extender.config.ConfigLoader;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("enableHTTPS: the verbs are served over TLS with the configured certificate")
class TlsIT {

  @Test
  @DisplayName("--tls-cert/--tls-key: filter answers over HTTPS")
  void https() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
    ExtenderConfig config = ConfigLoader.load(List.of("--port", "0", "--tls-cert", cert.certificatePath(),
        "--tls-key", cert.privateKeyPath()));
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer server = ExtenderServer.start(vertx, config, DemoCluster.of(TestMachines.golden()))
          .toCompletionStage().toCompletableFuture().get();
      // held until the end: Vert.x closes the pool of a client that is garbage collected
      HttpClient client = vertx.createHttpClient(new HttpClientOptions().setSsl(true).setTrustAll(true)
          .setVerifyHost(false));
      Buffer body = client.request(HttpMethod.POST, server.actualPort(), "localhost", "/scheduler/filter")
          .compose(req -> req.send(Http.golden("filter-names.json")))
          .compose(r -> r.body())
          .toCompletionStage().toCompletableFuture().get();
      JsonObject r = new JsonObject(body);
      assertEquals("pix-node", r.getJsonArray("NodeNames").getString(0));
      assertTrue(config.describe().contains("HTTPS"));
      client.close().toCompletionStage().toCompletableFuture().get();
    } finally {
      cert.delete();
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }
}
