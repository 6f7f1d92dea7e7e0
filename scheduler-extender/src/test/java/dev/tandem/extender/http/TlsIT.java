package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.extender.Extender;
import dev.tandem.extender.Http;
import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.demo.DemoCluster;
import dev.tandem.fixtures.TestMachines;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("enableHTTPS: the verbs are served over TLS with the configured certificate")
class TlsIT {

  @Test
  @DisplayName("--tls-cert/--tls-key: filter answers over HTTPS")
  void https() throws Exception {
    SelfSignedCertificate cert = SelfSignedCertificate.create("localhost");
    ExtenderConfig config =
        ExtenderConfig.load(
            List.of(
                "--port",
                "0",
                "--tls-cert",
                cert.certificatePath(),
                "--tls-key",
                cert.privateKeyPath()),
            Map.of());
    Vertx vertx = Vertx.vertx();
    try {
      HttpServer server =
          Extender.start(vertx, config, DemoCluster.of(TestMachines.golden()))
              .toCompletionStage()
              .toCompletableFuture()
              .get();
      Http https = new Http(server.actualPort(), Path.of(cert.certificatePath()));
      HttpResponse<String> answer =
          https.post("/scheduler/filter", Http.golden("filter-names.json"));
      assertEquals(200, answer.statusCode(), answer.body());
      JsonObject r = new JsonObject(answer.body());
      assertEquals("pix-node", r.getJsonArray("NodeNames").getString(0));
      assertTrue(config.describe().contains("HTTPS"));
    } finally {
      cert.delete();
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }
}
